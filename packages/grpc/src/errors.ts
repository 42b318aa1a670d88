import { status, Metadata, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { AppError, isErrorCode, type ErrorCode, type FieldError } from '@esim/errors';

/** The one place a domain error code becomes a gRPC status. */
const grpcStatusByCode: Record<ErrorCode, status> = {
  VALIDATION_ERROR: status.INVALID_ARGUMENT,
  MALFORMED_JSON: status.INVALID_ARGUMENT,
  UNAUTHENTICATED: status.UNAUTHENTICATED,
  INVALID_API_KEY: status.UNAUTHENTICATED,
  INVALID_TOKEN: status.UNAUTHENTICATED,
  INVALID_CREDENTIALS: status.UNAUTHENTICATED,
  INSUFFICIENT_BALANCE: status.FAILED_PRECONDITION,
  INSUFFICIENT_SCOPE: status.PERMISSION_DENIED,
  ACCOUNT_NOT_ACTIVE: status.PERMISSION_DENIED,
  TEST_MODE_ONLY: status.PERMISSION_DENIED,
  NOT_FOUND: status.NOT_FOUND,
  ORDER_NOT_FOUND: status.NOT_FOUND,
  PARTNER_NOT_FOUND: status.NOT_FOUND,
  PLAN_NOT_FOUND: status.NOT_FOUND,
  ESIM_NOT_FOUND: status.NOT_FOUND,
  EMAIL_ALREADY_REGISTERED: status.ALREADY_EXISTS,
  REQUEST_IN_PROGRESS: status.ABORTED,
  INVALID_STATE: status.FAILED_PRECONDITION,
  ESIM_NOT_TOPPABLE: status.FAILED_PRECONDITION,
  ESIM_NOT_SUSPENDABLE: status.FAILED_PRECONDITION,
  ORDER_NOT_CANCELLABLE: status.FAILED_PRECONDITION,
  EMAIL_NOT_VERIFIED: status.FAILED_PRECONDITION,
  OPERATOR_ROLE_REQUIRED: status.PERMISSION_DENIED,
  PAYLOAD_TOO_LARGE: status.INVALID_ARGUMENT,
  UNSUPPORTED_MEDIA_TYPE: status.INVALID_ARGUMENT,
  IDEMPOTENCY_CONFLICT: status.ALREADY_EXISTS,
  PLAN_NOT_AVAILABLE: status.FAILED_PRECONDITION,
  PLAN_NOT_COMPATIBLE: status.FAILED_PRECONDITION,
  RATE_LIMITED: status.RESOURCE_EXHAUSTED,
  INTERNAL: status.INTERNAL,
  UNAVAILABLE: status.UNAVAILABLE,
};

const codeKey = 'x-error-code';
const fieldErrorsKey = 'x-field-errors-bin';

// SQLSTATE class 08 (connection exception), too many connections, the server shutting down or starting; socket errors;
// a statement or a transaction ended by its deadline (57014 statement_timeout, 25P03 idle_in_transaction_session_timeout, #23).
const outageCodes = /^(08...|53300|57P0[123]|57014|25P03|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE)$/;

/**
 * The service's own infrastructure failing rather than its code: Postgres
 * unreachable, out of connections or restarting. The caller may retry such a
 * call, so it answers UNAVAILABLE (503 at the edge), never INTERNAL. pg-pool's
 * connect timeout carries no code, only its message; so does pg's refusal to
 * use a client whose session the server ended a moment before (a restart).
 */
export function isOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && outageCodes.test(code)) return true;
  return /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Client was closed)/.test(error.message);
}

/** Server side: a thrown value becomes a status; anything but an AppError hides its message. */
export function toStatus(error: unknown): Partial<StatusObject> {
  const metadata = new Metadata();
  if (isOutage(error)) {
    metadata.set(codeKey, 'UNAVAILABLE');
    return { code: status.UNAVAILABLE, details: 'A dependency is unavailable; retry shortly.', metadata };
  }
  if (!(error instanceof AppError) || error.code === 'INTERNAL') {
    metadata.set(codeKey, 'INTERNAL');
    return { code: status.INTERNAL, details: 'internal error', metadata };
  }
  metadata.set(codeKey, error.code);
  if (error.errors) metadata.set(fieldErrorsKey, Buffer.from(JSON.stringify(error.errors)));
  return { code: grpcStatusByCode[error.code], details: error.message, metadata };
}

/** Client side: the status becomes the AppError the server raised, or UNAVAILABLE when it never answered. */
export function fromServiceError(error: ServiceError): AppError {
  const code = error.metadata?.get(codeKey)[0];
  if (typeof code === 'string' && isErrorCode(code)) {
    const raw = error.metadata.get(fieldErrorsKey)[0];
    const errors = raw instanceof Buffer ? (JSON.parse(raw.toString('utf8')) as FieldError[]) : undefined;
    return new AppError(code, error.details, { errors, cause: error });
  }
  if (error.code === status.UNAVAILABLE || error.code === status.DEADLINE_EXCEEDED || error.code === status.CANCELLED) {
    return new AppError('UNAVAILABLE', 'An internal service did not answer; retry shortly.', { cause: error });
  }
  return new AppError('INTERNAL', undefined, { cause: error });
}

/**
 * True when a client call failed because its deadline passed with the call
 * under way (the server may have done the work): an outcome unknown, not a
 * "nothing changed". The AppError fromServiceError made keeps the status as its cause.
 */
export function isDeadlineExceeded(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === status.DEADLINE_EXCEEDED;
}
