/**
 * WEBHOOK_RETRY_SCHEDULE lists the delays between attempts: attempt 1 goes
 * out at once, attempt n+1 follows attempt n by `schedule[n-1]`, and a
 * failure once the schedule is spent is final (`failed`). An operator's
 * retry continues the count, so it buys one more attempt past the schedule.
 * Returns undefined when no automatic attempt follows `attempt`.
 */
export function delayAfterAttempt(schedule: readonly number[], attempt: number): number | undefined {
  return attempt >= 1 ? schedule[attempt - 1] : undefined;
}
