import type { components } from './generated/partner.js';

export type Problem = components['schemas']['Problem'];
/** Every code the platform answers (contract §3), from the OpenAPI document. */
export type ProblemCode = Problem['code'];

/**
 * A problem+json answer as an exception: `err.code === 'INSUFFICIENT_BALANCE'`
 * is checked by the compiler. A body that is not a problem (a proxy's HTML
 * page) still gives a status, with code `UNKNOWN`.
 */
export class EsimApiError extends Error {
  override readonly name = 'EsimApiError';
  readonly status: number;
  readonly code: ProblemCode | 'UNKNOWN';
  readonly requestId: string | undefined;
  /** Every failing field, on VALIDATION_ERROR. */
  readonly errors: { path: string; message: string }[];
  readonly problem: Problem | undefined;

  constructor(status: number, body: unknown, requestId?: string | null) {
    const problem = isProblem(body) ? body : undefined;
    super(problem ? `${problem.code}: ${problem.detail}` : `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.code = problem?.code ?? 'UNKNOWN';
    this.requestId = problem?.requestId ?? requestId ?? undefined;
    this.errors = problem?.errors ?? [];
  }
}

function isProblem(body: unknown): body is Problem {
  return typeof body === 'object' && body !== null && typeof (body as Problem).code === 'string' && typeof (body as Problem).status === 'number';
}

/** The webhook's signature or timestamp did not check out: answer 400 (or 401) and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
