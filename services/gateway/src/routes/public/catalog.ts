import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { networkGenerations, type Tier } from '@esim/vocabulary';
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

/** `true` or `false` exactly; anything else is 400 naming the parameter. */
const booleanQuery = z.enum(['true', 'false'], { error: 'must be true or false' }).optional();

/** The filters a catalog page depends on, as the query carries them. */
interface Filters {
  country?: string | undefined;
  generation?: string | undefined;
  unlimited?: 'true' | 'false' | undefined;
  topUpable?: 'true' | 'false' | undefined;
}

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
    generation: z
      .string()
      .transform((value) => value.toUpperCase())
      .pipe(z.enum(networkGenerations, { error: `must be one of ${networkGenerations.join(', ')}` }))
      .optional()
      .describe('Only plans with a network of this generation (in `country` when given), e.g. 5G'),
    unlimited: booleanQuery.describe('true: only unlimited plans; false: only plans with a data allowance'),
    topUpable: booleanQuery.describe('true: only plans that can be topped up; false: only those that cannot'),
    ...pageQuery(50),
  });

  const fetchPage = async (tier: Tier, query: Filters, page: number, limit: number, coversAll: string[] = []) => {
    const result = await catalog.listPlans({
      country: query.country ?? '',
      tier,
      page: { page, limit },
      coversAll,
      generation: query.generation ?? '',
      unlimited: query.unlimited === undefined ? undefined : query.unlimited === 'true',
      topUpable: query.topUpable === undefined ? undefined : query.topUpable === 'true',
    });
    return { data: result.plans.map(toPlanView), pagination: pagination(page, limit, result.total) };
  };
  // Encoded exactly as the route's serializer would (the same schema, then JSON), once per page and version.
  const render = async (tier: Tier, query: Filters, page: number, limit: number) =>
    Buffer.from(JSON.stringify(z.encode(planPage, await fetchPage(tier, query, page, limit))));

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
            'With `iccid`, only the plans a top-up of that eSIM accepts: those covering every country of its first plan. ' +
            '`generation`, `unlimited` and `topUpable` keep only the plans with those traveller facts.',
          security: door.security,
          querystring,
          response: { 200: planPage, ...problems(400, 404), ...door.problems },
        },
        onRequest: door.onRequest,
      },
      async (request, reply) => {
        const { iccid, page, limit } = request.query;
        const filters: Filters = request.query;
        const { tier, partnerId } = accountOf(request);
        if (iccid !== undefined) {
          // Per eSIM and rare: asked each time, never cached with the shared pages.
          const esim = await orders.getEsim({ partnerId, iccid: iccidOrNotFound(iccid) });
          return fetchPage(tier, filters, page, limit, esim.countries);
        }
        const version = versions.get(request);
        // Without a version (Redis did not answer it), the catalog is asked and nothing is stored.
        if (!rendered || version === undefined) return fetchPage(tier, filters, page, limit);
        // Every filter is part of the key: a page depends on each of them.
        const key = [tier, filters.country ?? '', filters.generation ?? '', filters.unlimited ?? '', filters.topUpable ?? '', page, limit].join('|');
        const body = await rendered.responses.get(version, key, () => render(tier, filters, page, limit));
        // Already encoded with the same schema: fastify sends a Buffer as it is.
        return reply.type('application/json; charset=utf-8').send(body as never);
      },
    );
  }
}
