/**
 * Exit codes scripts can rely on (README.md):
 * 0 done · 1 usage (unknown command, missing or bad argument) · 2 the API
 * refused the request (4xx: not found, invalid state, validation) · 3 the
 * API is unreachable or failed (connection refused, timeout, 5xx) · 4 not
 * authorized (no token, or the API answered 401).
 */
export const exitCodes = { ok: 0, usage: 1, refused: 2, unavailable: 3, unauthorized: 4 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** The problem+json body, printed as is with --json. */
    readonly problem?: unknown,
  ) {
    super(message);
  }
}
