import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditContextOf } from '../../auth/adminAuth.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { activationPolicies, networkGenerations } from '@esim/vocabulary';
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
  dataMb: z.number().int().positive().max(10_485_760).nullable(),
  validityDays: z.number().int().positive().max(3650),
  floorPrice: cents,
  retailPrice: cents,
  supplierSku: z.string().trim().min(1).max(64),
  supplierCost: cents,
  active: z.boolean(),
  unlimited: z.boolean(),
  fairUseMb: z.number().int().positive().max(10_485_760).nullable(),
  throttleKbps: z.number().int().positive().max(1_000_000).nullable(),
  networks: z
    .array(
      z.strictObject({
        country: countryCode,
        operator: z.string().trim().min(1).max(100),
        generations: z.array(z.enum(networkGenerations)).min(1, 'must list at least one generation'),
      }),
    )
    .max(1_000),
  voice: z.boolean(),
  sms: z.boolean(),
  kycRequired: z.boolean(),
  topUpable: z.boolean(),
  activationPolicy: z.enum(activationPolicies),
  profileType: z.string().trim().min(1).max(64).nullable(),
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
    dataMb: input.dataMb ?? undefined,
    clearDataMb: input.dataMb === null,
    validityDays: input.validityDays,
    floorPrice: input.floorPrice === undefined ? undefined : BigInt(input.floorPrice),
    retailPrice: input.retailPrice === undefined ? undefined : BigInt(input.retailPrice),
    supplierSku: input.supplierSku,
    supplierCost: input.supplierCost === undefined ? undefined : BigInt(input.supplierCost),
    active: input.active,
    unlimited: input.unlimited,
    fairUseMb: input.fairUseMb ?? undefined,
    clearFairUseMb: input.fairUseMb === null,
    throttleKbps: input.throttleKbps ?? undefined,
    clearThrottleKbps: input.throttleKbps === null,
    networks: input.networks ?? [],
    setNetworks: input.networks !== undefined,
    voice: input.voice,
    sms: input.sms,
    kycRequired: input.kycRequired,
    topUpable: input.topUpable,
    activationPolicy: input.activationPolicy,
    profileType: input.profileType ?? undefined,
    clearProfileType: input.profileType === null,
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
        description:
          'Traveller facts left out take their defaults: limited (`dataMb` required), no voice or SMS, no KYC, top-upable, validity from first use, no networks listed. ' +
          'An unlimited plan has `dataMb` null (or absent) and both `fairUseMb` and `throttleKbps`.',
        body: z.strictObject(planFields)
          .partial()
          .required({ name: true, countries: true, validityDays: true, floorPrice: true, retailPrice: true, supplierSku: true, supplierCost: true })
          .extend({ active: planFields.active.default(true) })
          // A limited plan (the default) needs its allowance; an unlimited one has none. Checked even when other fields fail, so one answer names them all.
          .refine((plan) => plan.unlimited === true || plan.dataMb !== undefined, {
            path: ['dataMb'],
            message: 'is required unless the plan is unlimited',
            when: (payload) => typeof payload.value === 'object' && payload.value !== null,
          }),
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
        description:
          'Send only the fields to change. `active: false` removes the plan from partner listings at once. ' +
          '`unlimited: true` clears `dataMb`; `unlimited: false` clears `fairUseMb` and `throttleKbps` (unless the same call sets them).',
        params,
        body: z.strictObject(planFields).partial(),
        response: { 200: adminPlanView, ...problems(400, 401, 404, 413, 415, 503) },
      },
    },
    async (request) =>
      toAdminPlanView(await catalog.updatePlan({ id: request.params.id, plan: toPlanFields(request.body), audit: auditContextOf(request) })),
  );
}
