import type { FastifyRequest } from 'fastify';
// The `request.operator` the operator check sets (its declaration lives there).
import type {} from './operatorAuth.js';

const printable = /^[\x20-\x7e]{1,100}$/;

/**
 * Who did it, for the audit log (§10): the authenticated operator's id
 * (`opr_…`, or `admin-token`), never a header. The optional X-Operator header
 * is kept as a free-text note beside it.
 */
export function auditContextOf(request: FastifyRequest): { operator: string; requestId: string; note: string } {
  const note = request.headers['x-operator'];
  return {
    operator: request.operator?.id ?? '',
    requestId: request.id,
    note: typeof note === 'string' && printable.test(note) ? note : '',
  };
}
