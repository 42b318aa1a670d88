/**
 * A fetch that retries what is safe to retry, a bounded number of times:
 * 429 after its `Retry-After`, 503 and connection failures with exponential
 * backoff and jitter. Every partner-API write the SDK sends is idempotent
 * (an order carries its clientRequestId), so a retried POST never pays twice.
 */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  maxAttempts?: number;
  /** First backoff (default 250 ms), doubled per attempt. */
  baseDelayMs?: number;
  /** No single wait is longer, `Retry-After` included (default 20 s). */
  maxDelayMs?: number;
}

export type Fetch = (input: Request) => Promise<Response>;

/**
 * What a request may be retried after. `idempotent` (every partner-API write
 * the SDK sends but the test helpers): 429, 503 and dropped connections.
 * `refusedOnly`: 429 alone, which the gateway answers before doing anything;
 * a 503 or a dropped connection may come after the work was done, and
 * repeating "add 100 MB" or "credit 5.00" would do it twice.
 */
export type RetryPolicy = 'idempotent' | 'refusedOnly';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function retryingFetch(inner: Fetch, options: RetryOptions = {}, policy: RetryPolicy = 'idempotent'): Fetch {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const base = options.baseDelayMs ?? 250;
  const cap = options.maxDelayMs ?? 20_000;
  const backoff = (attempt: number) => Math.min(cap, base * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));

  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= maxAttempts;
      let response: Response;
      try {
        response = await inner(last ? request : request.clone());
      } catch (error) {
        if (last || request.signal.aborted || policy === 'refusedOnly') throw error;
        await sleep(backoff(attempt));
        continue;
      }
      if (last || (response.status !== 429 && (response.status !== 503 || policy === 'refusedOnly'))) return response;
      const wait = response.status === 429 ? (retryAfterMs(response.headers.get('retry-after')) ?? backoff(attempt)) : backoff(attempt);
      await response.body?.cancel();
      await sleep(Math.min(cap, wait));
    }
  };
}
