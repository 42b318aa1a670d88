import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditContextOf } from '../../auth/adminAuth.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { countryCode } from '../../views/country.js';
import { adminPlanView, toAdminPlanView } from '../../views/plans.js';
import type { CatalogClient } from '../../backends.js';
import { component } from '../../http/components.js';

const tags = ['Plans'];
const cents = z.number().int().positive().max(100_000_000);
const planFields = {
  name: z.string().trim().min(1).max(200),
  countries: z.array(countryCode).min(1, 'must list at least one country').max(250),
  region: z.string().trim().min(1).max(100).nullable(),
  dataMb: z.number().int().positive().max(10_485_760),
  validityDays: z.number().int().positive().max(3650),
  floorPrice: cents,
  retailPrice: cents,
  supplierSku: z.string().trim().min(1).max(64),
  supplierCost: cents,
  active: z.boolean(),
};
const params = z.object({ id: z.string().min(1) });

type PlanInput = Partial<{ [K in keyof typeof planFields]: z.output<(typeof planFields)[K]> }>;

/** The PlanFields message: only the fields the operator sent are set. */
function toPlanFields(input: PlanInput) {
  return {
    name: input.name,
    countries: input.countries ?? [],
    setCountries: input.countries !== undefined,
    region: input.region ?? undefined,
    clearRegion: input.region === null,
    dataMb: input.dataMb,
    validityDays: input.validityDays,
    floorPrice: input.floorPrice === undefined ? undefined : BigInt(input.floorPrice),
    retailPrice: input.retailPrice === undefined ? undefined : BigInt(input.retailPrice),
    supplierSku: input.supplierSku,
    supplierCost: input.supplierCost === undefined ? undefined : BigInt(input.supplierCost),
    active: input.active,
  };
}

const adminPlanPage = component(pageOf(adminPlanView), 'AdminPlanPage', 'admin');

/** Operator plan management (§5): list, create, read, update, deactivate (`active: false`). */
export function adminPlanRoutes(app: FastifyInstance, { catalog }: { catalog: CatalogClient }): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/plans',
    {
      schema: {
        tags,
        summary: 'List plans with every internal field',
        querystring: z.strictObject({ active: z.enum(['true', 'false']).optional(), country: countryCode.optional(), ...pageQuery() }),
        response: { 200: adminPlanPage, ...problems(400, 401, 503) },
      },
    },
    async (request) => {
      const { active, country, page, limit } = request.query;
      const result = await catalog.adminListPlans({ active: active === undefined ? undefined : active === 'true', country: country ?? '', page: { page, limit } });
      return { data: result.plans.map(toAdminPlanView), pagination: pagination(page, limit, result.total) };
    },
  );

  typed.post(
    '/plans',
    {
      schema: {
        tags,
        summary: 'Create a plan',
        body: z.strictObject({ ...planFields, region: planFields.region.optional(), active: planFields.active.default(true) }),
        response: { 201: adminPlanView, ...problems(400, 401, 413, 415, 503) },
      },
    },
    async (request, reply) => {
      const plan = await catalog.createPlan({ plan: toPlanFields(request.body), audit: auditContextOf(request) });
      return reply.code(201).send(toAdminPlanView(plan));
    },
  );

  typed.get(
    '/plans/:id',
    { schema: { tags, summary: 'A plan with every internal field', params, response: { 200: adminPlanView, ...problems(401, 404, 503) } } },
    async (request) => toAdminPlanView(await catalog.adminGetPlan({ id: request.params.id })),
  );

  typed.patch(
    '/plans/:id',
    {
      schema: {
        tags,
        summary: 'Update or deactivate a plan',
        description: 'Send only the fields to change. `active: false` removes the plan from partner listings at once.',
        params,
        body: z.strictObject(planFields).partial(),
        response: { 200: adminPlanView, ...problems(400, 401, 404, 413, 415, 503) },
      },
    },
    async (request) =>
      toAdminPlanView(await catalog.updatePlan({ id: request.params.id, plan: toPlanFields(request.body), audit: auditContextOf(request) })),
  );
}
