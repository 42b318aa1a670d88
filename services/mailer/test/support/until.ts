/** Polls `check` until it holds; every wait in these tests is bounded and says what it waited for. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
