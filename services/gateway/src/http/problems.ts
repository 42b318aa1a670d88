import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, internalDetail, problemBody, type ErrorCode, type FieldError } from '@esim/errors';
import { apiHeaders } from './apiHeaders.js';

/**
 * The one place an error becomes an HTTP answer: an RFC 9457 problem with the
 * contract's code. Framework errors (bad JSON, body too large, wrong media
 * type, schema validation) are translated here too, so every listener speaks
 * the same language and nothing a client sends becomes a 500.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) return validationFailure(error as FastifyError);
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 16 KiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('MALFORMED_JSON', 'The request body is not valid JSON.');
    case 'FST_ERR_BAD_URL':
      return badPath(fastifyError.message ?? '');
    // A path parameter over maxParamLength is no id this platform ever issued (§3: unknown ids are 404).
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('NOT_FOUND', 'No such resource.');
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) return new AppError('MALFORMED_JSON', 'The request body is not valid JSON.');
  // Anything else a library refused with a 4xx (fastify's other FST_* client errors, a file server's
  // 404) is the client's request, not our bug: its nearest code in the contract's table, never a 500.
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return clientFault(status, fastifyError.message);
  return new AppError('INTERNAL', internalDetail, { cause: error });
}

const codeByStatus: Partial<Record<number, ErrorCode>> = { 404: 'NOT_FOUND', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' };

function clientFault(status: number, message: string | undefined): AppError {
  const code = codeByStatus[status] ?? 'VALIDATION_ERROR';
  return code === 'VALIDATION_ERROR' ? new AppError(code, `The request was refused: ${message ?? 'it is not valid'}.`) : new AppError(code);
}

/** fastify's message is `'<path>' is not a valid url component`; the answer names the path, shortened. */
function badPath(message: string): AppError {
  const path = /^'(.*)' is not a valid url component$/s.exec(message)?.[1] ?? '';
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  const rule = 'has invalid percent-encoding';
  return new AppError('VALIDATION_ERROR', `The path ${shown} ${rule}.`, { errors: [{ path: 'path', message: `${shown} ${rule}` }] });
}

function validationFailure(error: FastifyError): AppError {
  const location = error.validationContext === 'body' ? 'body' : error.validationContext === 'querystring' ? 'query' : error.validationContext;
  const errors: FieldError[] = [];
  for (const issue of error.validation ?? []) {
    const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const unknownKeys = (issue.params as { keys?: string[] }).keys;
    if (issue.keyword === 'unrecognized_keys' && unknownKeys) {
      for (const key of unknownKeys) errors.push({ path: path ? `${path}.${key}` : key, message: 'is not a known field' });
    } else {
      errors.push({ path: path || location || 'body', message: issue.message ?? 'is invalid' });
    }
  }
  return new AppError('VALIDATION_ERROR', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.code === 'RATE_LIMITED' && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
  // Sent as JSON text: problemBody already has the Problem schema's exact fields and order, so running
  // it through the route's zod serializer again (a third of a 401's serialization cost) adds nothing.
  // Errors can be raised before the onRequest hook set these (frameworkErrors), so they are set here too.
  return reply.code(error.status).headers(apiHeaders).type('application/problem+json').send(JSON.stringify(problemBody(error, request.id)));
}
