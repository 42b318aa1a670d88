import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import { isId } from '@esim/ids';
import type { partnersV1 } from '@esim/proto';
import { operatorRoles, type OperatorRole } from '@esim/vocabulary';
import { auditContextOf } from '../../auth/adminAuth.js';
import { operatorOf } from '../../auth/operatorAuth.js';
import type { PartnersClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';

/** The operator view of §10: never the token, which exists only in the invitation e-mail. */
export const operatorView = component(
  z.object({
    id: z.string().describe('opr_…'),
    email: z.string(),
    name: z.string(),
    role: z.enum(operatorRoles),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  }),
  'Operator',
  'admin',
);

const whoAmI = component(
  z.object({
    id: z.string().describe('opr_…, or admin-token for the break-glass ADMIN_TOKEN'),
    email: z.string().nullable(),
    role: z.enum(operatorRoles),
  }),
  'OperatorSelf',
  'admin',
);

const operatorPage = component(pageOf(operatorView), 'OperatorPage', 'admin');
const params = z.object({ id: z.string().min(1) });
const role = z.enum(operatorRoles);
const tags = ['Operators'];

function toOperatorView(operator: partnersV1.Operator): z.input<typeof operatorView> {
  return {
    id: operator.id,
    email: operator.email,
    name: operator.name,
    role: operator.role as OperatorRole,
    createdAt: operator.createdAt,
    lastUsedAt: operator.lastUsedAt ?? null,
    revokedAt: operator.revokedAt ?? null,
  };
}

/** An id that cannot name an operator is 404 without a call (§3). */
function operatorId(id: string): string {
  if (!isId('opr', id)) throw new AppError('NOT_FOUND', `No operator ${id.slice(0, 64)}.`);
  return id;
}

/** Operator accounts (§10): created by an admin (ADMIN_TOKEN creates the first), token e-mailed once, role changed, revoked. */
export function adminOperatorRoutes(app: FastifyInstance, { partners }: { partners: PartnersClient }): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/operators/me',
    {
      schema: {
        tags,
        summary: 'Who you are signed in as, and your role',
        description: 'The console reads this to show only what your role may do.',
        response: { 200: whoAmI, ...problems(401) },
      },
    },
    async (request) => {
      const operator = operatorOf(request);
      return { id: operator.id, email: operator.email, role: operator.role };
    },
  );

  typed.get(
    '/operators',
    {
      schema: {
        tags,
        summary: 'List operators, newest first',
        querystring: z.strictObject(pageQuery()),
        response: { 200: operatorPage, ...problems(400, 401, 403, 503) },
      },
    },
    async (request) => {
      const { page, limit } = request.query;
      const result = await partners.listOperators({ page: { page, limit } });
      return { data: result.operators.map(toOperatorView), pagination: pagination(page, limit, result.total) };
    },
  );

  typed.post(
    '/operators',
    {
      schema: {
        tags,
        summary: 'Create an operator account',
        description: 'The operator’s token `op_<prefix>_<secret>` is e-mailed to them once; only its hash is stored. Needs the admin role.',
        body: z.strictObject({
          email: z.email('must be a valid e-mail address').max(254),
          name: z.string().trim().min(1).max(200),
          role,
        }),
        response: { 201: operatorView, ...problems(400, 401, 403, 413, 415, 503) },
      },
    },
    async (request, reply) => {
      const operator = await partners.createOperator({ ...request.body, email: request.body.email.toLowerCase(), audit: auditContextOf(request) });
      return reply.code(201).send(toOperatorView(operator));
    },
  );

  typed.patch(
    '/operators/:id',
    {
      schema: {
        tags,
        summary: 'Change an operator’s role',
        description: 'Takes effect within 2 seconds on every gateway replica.',
        params,
        body: z.strictObject({ role }),
        response: { 200: operatorView, ...problems(400, 401, 403, 404, 413, 415, 503) },
      },
    },
    async (request) =>
      toOperatorView(await partners.updateOperatorRole({ id: operatorId(request.params.id), role: request.body.role, audit: auditContextOf(request) })),
  );

  typed.post(
    '/operators/:id/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke an operator’s token',
        description: 'The token answers 401 within 2 seconds on every gateway replica. Revoking twice answers the operator as it is.',
        params,
        response: { 200: operatorView, ...problems(401, 403, 404, 503) },
      },
    },
    async (request) => toOperatorView(await partners.revokeOperator({ id: operatorId(request.params.id), audit: auditContextOf(request) })),
  );
}
