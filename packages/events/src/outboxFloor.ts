/**
 * Where the outbox relay's claim may start its scan: a seq at or below which
 * every row that ever commits is already published.
 *
 * Why the relay needs it: a published row leaves its entry in the partial
 * index of unpublished rows (`outbox_unpublished`) until a scan may mark the
 * entry dead, which Postgres allows only once no transaction is older than
 * the publication. While transactions run (a burst), every claim re-read
 * every entry published since: 1,150–1,344 entries per order in
 * `orders.outbox` (docs/benchmarks.md, "Flat with history"). A scan that
 * starts after the floor never meets them.
 *
 * Why skipping up to the floor changes nothing the relay publishes, nor its
 * order: the claim asks for unpublished rows, and below the floor there are
 * none, now or later. The floor only moves to a seq `L` once every row with
 * a seq up to `L` is final and was seen:
 * - `L` is the outbox sequence's last value. A transaction takes its seq
 *   while inserting into the outbox, so it holds the table's
 *   RowExclusiveLock from before it takes the seq (the lock is taken when
 *   the INSERT is parsed or its plan is checked) until it ends.
 * - Right after reading `L`, the relay lists the transactions holding that
 *   lock (`pg_locks`, this database's outbox only): every transaction that
 *   may still commit a row up to `L` is in the list, or has already ended.
 * - A later tick reads the list again before its claim takes its snapshot.
 *   When none of the listed transactions is still there, each row up to `L`
 *   has committed before that snapshot (and is visible to the claim) or never
 *   will. Rows committed late with a lower seq than rows already published
 *   are among them, and are found.
 * - That claim read every unpublished row above the old floor up to its
 *   limit, and the relay marked them (or found them marked by another relay)
 *   and had every publish acknowledged before committing. So the floor moves
 *   to `L`, or to the last seq the claim read when it was full.
 * A published row is never unpublished after its commit (the relay undoes
 * only its own marks, before committing), so the floor stays true.
 * The floor is this process's own memory: it starts at 0 (the whole index)
 * and a relay that does not hold the lock learns nothing. Only a long
 * transaction that writes this outbox holds the floor where it is (the
 * entries' own cleanup waits for every transaction in the database), and
 * that costs scans, never events.
 */
export interface ClaimObservation {
  /** The outbox sequence's last value (null: no seq taken yet), read first. */
  lastSeq: bigint | null;
  /** The virtual transaction ids holding RowExclusiveLock on the outbox, read after `lastSeq` and before the claim's snapshot. */
  writers: readonly string[];
  /** Unpublished rows the claim's scan read (at most `limit`), and the largest seq among them. */
  scanned: number;
  scannedMax: bigint | null;
  limit: number;
}

export class OutboxFloor {
  #floor = 0n;
  /** The last value to move the floor to once every transaction then writing the outbox has ended. */
  #candidate: { lastSeq: bigint; writers: ReadonlySet<string> } | undefined;

  get value(): bigint {
    return this.#floor;
  }

  /** Called only after a claim that held the relay's lock, committed, and had every publish acknowledged. */
  observe(claim: ClaimObservation): void {
    const candidate = this.#candidate;
    if (candidate && !claim.writers.some((writer) => candidate.writers.has(writer))) {
      const seen = claim.scanned < claim.limit || claim.scannedMax === null ? candidate.lastSeq : min(candidate.lastSeq, claim.scannedMax);
      if (seen > this.#floor) this.#floor = seen;
      this.#candidate = undefined;
    }
    if (!this.#candidate && claim.lastSeq !== null && claim.lastSeq > this.#floor) this.#candidate = { lastSeq: claim.lastSeq, writers: new Set(claim.writers) };
  }
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
