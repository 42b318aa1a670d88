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
 * - `L` is the outbox sequence's last value, read before the claim's
 *   snapshot `S` is taken. A row takes its seq after its transaction takes
 *   its id (enqueueEvent), so every transaction holding a seq up to `L` had
 *   an id when `S` was taken: below `S.xmax`.
 * - At a later claim whose snapshot's xmin is at least `S.xmax`, every such
 *   transaction has ended, so each row up to `L` has committed (and is
 *   visible to that claim) or never will. Rows committed late with a lower
 *   seq than rows already published are among them, and are found.
 * - That claim read every unpublished row above the old floor up to its
 *   limit, and the relay marked them (or found them marked by another relay)
 *   and had every publish acknowledged before committing. So the floor moves
 *   to `L`, or to the last seq the claim read when it was full.
 * A published row is never unpublished after its commit (the relay undoes
 * only its own marks, before committing), so the floor stays true.
 * The floor is this process's own memory: it starts at 0 (the whole index)
 * and a relay that does not hold the lock learns nothing. A long transaction
 * anywhere on the server holds it where it is, which costs scans, never
 * events.
 */
export interface ClaimObservation {
  /** The outbox sequence's last value, read before the claim's snapshot (null: no seq taken yet). */
  lastSeq: bigint | null;
  /** The claim snapshot's xmin and xmax (`pg_snapshot_xmin`/`xmax` of `pg_current_snapshot()`). */
  xmin: bigint;
  xmax: bigint;
  /** Unpublished rows the claim's scan read (at most `limit`), and the largest seq among them. */
  scanned: number;
  scannedMax: bigint | null;
  limit: number;
}

export class OutboxFloor {
  #floor = 0n;
  /** The last value to move the floor to once every transaction below `xmax` has ended. */
  #candidate: { lastSeq: bigint; xmax: bigint } | undefined;

  get value(): bigint {
    return this.#floor;
  }

  /** Called only after a claim that held the relay's lock, committed, and had every publish acknowledged. */
  observe(claim: ClaimObservation): void {
    const candidate = this.#candidate;
    if (candidate && claim.xmin >= candidate.xmax) {
      const seen = claim.scanned < claim.limit || claim.scannedMax === null ? candidate.lastSeq : min(candidate.lastSeq, claim.scannedMax);
      if (seen > this.#floor) this.#floor = seen;
      this.#candidate = undefined;
    }
    if (!this.#candidate && claim.lastSeq !== null && claim.lastSeq > this.#floor) this.#candidate = { lastSeq: claim.lastSeq, xmax: claim.xmax };
  }
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
