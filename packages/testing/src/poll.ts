/**
 * Waits for asynchronous effects (a consumer's write, a relay's publish) by
 * polling a condition rather than sleeping a fixed time.
 */

/** Polls `check` every `pollMs` until it returns true or `timeoutMs` passes; returns the last answer, for the test to assert. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, pollMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return check();
}

/** Polls `check` until it holds; throws naming `what` after `timeoutMs`, so every wait says what it waited for. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
