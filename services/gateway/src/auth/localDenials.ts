/**
 * The keys Redis has refused, each until its window resets, so this replica
 * refuses their next requests itself: a flood past a limit (a test key
 * hammered by a load generator, §14) costs no Redis round trip per request.
 *
 * Redis stays the shared truth. A fixed window only counts up until its key
 * expires (nothing here rewards a consumed key), so a key Redis refused
 * stays refused on every replica until then; the local deadline is the
 * moment the refusing request was *sent* plus the window's remaining time,
 * which is no later than Redis's own expiry. A local denial therefore only
 * ever refuses what Redis would, and the first request after the reset goes
 * to Redis again.
 */
export class LocalDenials {
  /** Key → `performance.now()` when its window resets. */
  private readonly until = new Map<string, number>();

  constructor(
    /** Bound on remembered keys; past it a refused key simply keeps asking Redis. */
    private readonly maxKeys = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Milliseconds until the key's window resets when Redis has refused it in this window; 0 otherwise. */
  msBeforeReset(key: string): number {
    const until = this.until.get(key);
    if (until === undefined) return 0;
    const ms = until - this.now();
    if (ms > 0) return ms;
    this.until.delete(key);
    return 0;
  }

  /** Redis refused `key` for a request sent at `sentAt` (a `now()` reading), its window resetting `msBeforeReset` after it answered. */
  deny(key: string, sentAt: number, msBeforeReset: number): void {
    if (!(msBeforeReset > 0)) return;
    if (this.until.size >= this.maxKeys) this.forgetExpired();
    if (this.until.size >= this.maxKeys && !this.until.has(key)) return;
    this.until.set(key, sentAt + msBeforeReset);
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [key, until] of this.until) if (until <= now) this.until.delete(key);
  }
}
