import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Tier } from '@esim/vocabulary';
import type { CatalogClient, OrdersClient } from '../../backends.js';
import type { CatalogVersion } from '../../cache/catalogVersion.js';
import type { RenderedResponses } from '../../cache/renderedResponses.js';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { countryCode } from '../../views/country.js';
import { planView, toPlanView } from '../../views/plans.js';
import { iccidOrNotFound } from '../ids.js';
import { accountOf, type PartnerDoors } from '../partnerDoors.js';

const planPage = component(pageOf(planView), 'PlanPage', 'public');

export interface CatalogRouteDeps {
  catalog: CatalogClient;
  /** Reads the eSIM whose compatible plans `?iccid=` asks for (§13). */
  orders: OrdersClient;
  doors: PartnerDoors;
  /** Rendered pages per (tier, country, page, limit), checked against the catalog version on every call. */
  rendered?: { responses: RenderedResponses; version: CatalogVersion };
}

/** GET /partner/catalog (catalog:read) and its portal twin GET /partner/me/catalog: active plans at the caller's tier price (§5). */
export function catalogRoute(app: FastifyInstance, { catalog, orders, doors, rendered }: CatalogRouteDeps): void {
  const querystring = z.strictObject({
    country: countryCode.optional().describe('ISO 3166-1 alpha-2, case-insensitive'),
    iccid: z
      .string()
      .optional()
      .describe('One of your eSIMs: only the plans that can top it up (covering every country of its first plan); 404 ESIM_NOT_FOUND for an unknown one'),
    ...pageQuery(50),
  });

  const fetchPage = async (tier: Tier, country: string | undefined, page: number, limit: number, coversAll: string[] = []) => {
    const result = await catalog.listPlans({ country: country ?? '', tier, page: { page, limit }, coversAll });
    return { data: result.plans.map(toPlanView), pagination: pagination(page, limit, result.total) };
  };
  // Encoded exactly as the route's serializer would (the same schema, then JSON), once per page and version.
  const render = async (tier: Tier, country: string | undefined, page: number, limit: number) =>
    Buffer.from(JSON.stringify(z.encode(planPage, await fetchPage(tier, country, page, limit))));

  // The version is read while the door counts the request, in the same Redis round trip.
  const versions = new WeakMap<FastifyRequest, number>();
  const alongside = rendered && (async (request: FastifyRequest) => versions.set(request, await rendered.version.read()));

  for (const door of doors.both('catalog:read', { alongside })) {
    app.withTypeProvider<ZodTypeProvider>().get(
      `${door.prefix}/catalog`,
      {
        schema: {
          tags: [door.portal ? 'Portal' : 'Catalog'],
          summary: door.portal ? 'List wholesale plans (portal)' : 'List wholesale plans',
          description:
            'Active plans covering `country` (all when absent), local plans first, then by price. Regional plans appear under every country they cover. ' +
            'With `iccid`, only the plans a top-up of that eSIM accepts: those covering every country of its first plan.',
          security: door.security,
          querystring,
          response: { 200: planPage, ...problems(400, 404), ...door.problems },
        },
        onRequest: door.onRequest,
      },
      async (request, reply) => {
        const { country, iccid, page, limit } = request.query;
        const { tier, partnerId } = accountOf(request);
        if (iccid !== undefined) {
          // Per eSIM and rare: asked each time, never cached with the shared pages.
          const esim = await orders.getEsim({ partnerId, iccid: iccidOrNotFound(iccid) });
          return fetchPage(tier, country, page, limit, esim.countries);
        }
        const version = versions.get(request);
        // Without a version (Redis did not answer it), the catalog is asked and nothing is stored.
        if (!rendered || version === undefined) return fetchPage(tier, country, page, limit);
        const body = await rendered.responses.get(version, `${tier}|${country ?? ''}|${page}|${limit}`, () => render(tier, country, page, limit));
        // Already encoded with the same schema: fastify sends a Buffer as it is.
        return reply.type('application/json; charset=utf-8').send(body as never);
      },
    );
  }
}
