import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import type { RouteDeps } from '../deps.js';
import { component } from '../../http/components.js';

const auditEntry = component(
  z.object({
    id: z.string(),
    action: z.string(),
    target: z.string(),
    operator: z.string().nullable(),
    requestId: z.string(),
    details: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  }),
  'AuditEntry',
  'admin',
);

const auditPage = component(pageOf(auditEntry), 'AuditPage', 'admin');

/** GET /audit: every operator action, newest first (§10). */
export function adminAuditRoute(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/audit',
    {
      schema: {
        tags: ['Audit'],
        summary: 'The operator audit log',
        querystring: z.strictObject(pageQuery()),
        response: { 200: auditPage, ...problems(400, 401) },
      },
    },
    async (request) => {
      const { page, limit } = request.query;
      const result = await deps.partners.listAuditEntries({ page: { page, limit } });
      return {
        data: result.entries.map((e) => ({
          id: e.id,
          action: e.action,
          target: e.target,
          operator: e.operator || null,
          requestId: e.requestId,
          details: JSON.parse(e.detailsJson) as Record<string, unknown>,
          createdAt: e.createdAt,
        })),
        pagination: pagination(page, limit, result.total),
      };
    },
  );
}
