import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { partnersV1 } from '@esim/proto';
import type { PartnersClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';

export const auditEntry = component(
  z.object({
    id: z.string(),
    action: z.string(),
    target: z.string(),
    operator: z.string().nullable().describe('Who acted, from the credential: an operator id (opr_…), admin-token, or partner:<id> for a partner’s own change'),
    operatorEmail: z.string().nullable().describe('The operator account’s e-mail, when `operator` is one'),
    requestId: z.string(),
    details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()])).describe('The action’s non-secret facts by name'),
    createdAt: z.string(),
  }),
  'AuditEntry',
  'admin',
);

/** One audit fact as JSON: text, number, flag or list of names; no value is null (a cleared field). */
function detailValue(detail: partnersV1.AuditDetail): string | number | boolean | string[] | null {
  const { value } = detail;
  if (value.case === undefined) return null;
  return value.case === 'texts' ? value.value.values : value.value;
}

const auditPage = component(pageOf(auditEntry), 'AuditPage', 'admin');

/** GET /audit: every operator action, newest first (§10). */
export function adminAuditRoute(app: FastifyInstance, { partners }: { partners: PartnersClient }): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/audit',
    {
      schema: {
        tags: ['Audit'],
        summary: 'The operator audit log',
        querystring: z.strictObject(pageQuery()),
        response: { 200: auditPage, ...problems(400, 401, 503) },
      },
    },
    async (request) => {
      const { page, limit } = request.query;
      const result = await partners.listAuditEntries({ page: { page, limit } });
      return {
        data: result.entries.map((e) => ({
          id: e.id,
          action: e.action,
          target: e.target,
          operator: e.operator || null,
          operatorEmail: e.operatorEmail ?? null,
          requestId: e.requestId,
          details: Object.fromEntries(Object.entries(e.details).map(([name, detail]) => [name, detailValue(detail)])),
          createdAt: e.createdAt,
        })),
        pagination: pagination(page, limit, result.total),
      };
    },
  );
}
