import { AppError, type ErrorCode } from '@esim/errors';

/** One instance per (code, detail): problemBody only reads them, so the same error can answer every request. */
const made = new Map<string, AppError>();

/**
 * The AppError for a caller's mistake the auth hooks answer all day (no key,
 * a wrong one, a missing scope), made once and without a stack trace: a
 * refusal is not a bug, nobody reads its stack, and capturing one per
 * request cost the gateway several percent of its CPU on a flood of
 * unauthenticated requests. Details come from a small fixed set (codes,
 * scopes, partner statuses), so the map stays small.
 */
export function refusal(code: ErrorCode, detail: string): AppError {
  const key = `${code}\n${detail}`;
  let error = made.get(key);
  if (!error) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      error = Object.freeze(new AppError(code, detail));
    } finally {
      Error.stackTraceLimit = limit;
    }
    made.set(key, error);
  }
  return error;
}
