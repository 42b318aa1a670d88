import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../auth/apiKeyAuth.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { countryCode } from '../../views/country.js';
import { planView, toPlanView } from '../../views/plans.js';
import type { RouteDeps } from '../deps.js';
import { component } from '../../http/components.js';

const planPage = component(pageOf(planView), 'PlanPage', 'public');

/** GET /partner/catalog (catalog:read): active plans at the caller's tier price (§5). */
export function catalogRoute(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/partner/catalog',
    {
      schema: {
        tags: ['Catalog'],
        summary: 'List wholesale plans',
        description: 'Active plans covering `country` (all when absent), local plans first, then by price. Regional plans appear under every country they cover.',
        security: [{ apiKey: [] }, { apiKeyHeader: [] }],
        querystring: z.strictObject({ country: countryCode.optional().describe('ISO 3166-1 alpha-2, case-insensitive'), ...pageQuery(50) }),
        response: { 200: planPage, ...problems(400, 401, 403, 429, 503) },
      },
      onRequest: deps.apiKey('catalog:read'),
    },
    async (request) => {
      const { country, page, limit } = request.query;
      const result = await deps.catalog.listPlans({ country: country ?? '', tier: principalOf(request).tier, page: { page, limit } });
      return { data: result.plans.map(toPlanView), pagination: pagination(page, limit, result.total) };
    },
  );
}
