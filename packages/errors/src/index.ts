/**
 * The closed set of error codes every surface speaks (contract §3).
 * Transports translate them in exactly one place each: the gateway to
 * problem+json, the gRPC adapter to a status plus `x-error-code` metadata.
 */
export const errorCatalog = {
  VALIDATION_ERROR: { status: 400, title: 'Validation failed' },
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON' },
  UNAUTHENTICATED: { status: 401, title: 'Authentication required' },
  INVALID_API_KEY: { status: 401, title: 'Invalid API key' },
  INVALID_TOKEN: { status: 401, title: 'Invalid token' },
  INVALID_CREDENTIALS: { status: 401, title: 'Invalid credentials' },
  INSUFFICIENT_BALANCE: { status: 402, title: 'Insufficient balance' },
  INSUFFICIENT_SCOPE: { status: 403, title: 'Insufficient scope' },
  ACCOUNT_NOT_ACTIVE: { status: 403, title: 'Account not active' },
  TEST_MODE_ONLY: { status: 403, title: 'Test mode only' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  ORDER_NOT_FOUND: { status: 404, title: 'Order not found' },
  PARTNER_NOT_FOUND: { status: 404, title: 'Partner not found' },
  PLAN_NOT_FOUND: { status: 404, title: 'Plan not found' },
  ESIM_NOT_FOUND: { status: 404, title: 'eSIM not found' },
  EMAIL_ALREADY_REGISTERED: { status: 409, title: 'E-mail already registered' },
  REQUEST_IN_PROGRESS: { status: 409, title: 'Request in progress' },
  INVALID_STATE: { status: 409, title: 'Invalid state' },
  ESIM_NOT_TOPPABLE: { status: 409, title: 'eSIM cannot be topped up' },
  ESIM_NOT_SUSPENDABLE: { status: 409, title: 'eSIM cannot be suspended or resumed' },
  ORDER_NOT_CANCELLABLE: { status: 409, title: 'Order cannot be cancelled' },
  EMAIL_NOT_VERIFIED: { status: 409, title: 'E-mail not verified' },
  OPERATOR_ROLE_REQUIRED: { status: 403, title: 'Operator role required' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  IDEMPOTENCY_CONFLICT: { status: 422, title: 'Idempotency conflict' },
  PLAN_NOT_AVAILABLE: { status: 422, title: 'Plan not available' },
  PLAN_NOT_COMPATIBLE: { status: 422, title: 'Plan not compatible' },
  RATE_LIMITED: { status: 429, title: 'Rate limited' },
  INTERNAL: { status: 500, title: 'Internal error' },
  UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(errorCatalog, value);
}

/** `/problems/insufficient-balance` for `INSUFFICIENT_BALANCE`; docs/errors.md explains each. */
export function problemType(code: ErrorCode): string {
  return `/problems/${code.toLowerCase().replaceAll('_', '-')}`;
}

export interface FieldError {
  path: string;
  message: string;
}

/** A failure the caller can act on. Anything else that is thrown is a bug (INTERNAL). */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;

  constructor(code: ErrorCode, detail?: string, options?: { errors?: FieldError[]; cause?: unknown }) {
    super(detail ?? errorCatalog[code].title, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.errors = options?.errors;
  }

  get status(): number {
    return errorCatalog[this.code].status;
  }
}

export function validationError(errors: FieldError[]): AppError {
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return new AppError('VALIDATION_ERROR', detail, { errors });
}

/** What a client sees for INTERNAL: a bug's own message may name internals (SQL, paths, other services). */
export const internalDetail = 'Something went wrong on our side; it has been logged.';

/** An RFC 9457 problem as every HTTP surface answers it (contract §3). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  requestId?: string;
  errors?: FieldError[];
}

/**
 * The one builder of problem bodies, for every listener (the gateway's
 * errors, 404 and readiness, each service's health port), so no two
 * surfaces can disagree on a field or leak an INTERNAL message.
 */
export function problemBody(error: AppError, requestId?: string): ProblemBody {
  const { status, title } = errorCatalog[error.code];
  return {
    type: problemType(error.code),
    title,
    status,
    code: error.code,
    detail: error.code === 'INTERNAL' ? internalDetail : error.message,
    ...(requestId === undefined ? {} : { requestId }),
    ...(error.errors ? { errors: error.errors } : {}),
  };
}
