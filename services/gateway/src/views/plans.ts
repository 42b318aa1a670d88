import { z } from 'zod';
import type { catalogV1 } from '@esim/proto';
import { activationPolicies, networkGenerations } from '@esim/vocabulary';
import { component } from '../http/components.js';

/** One operator a plan uses in one country (§5). */
export const planNetworkView = component(
  z.object({
    country: z.string().describe('ISO 3166-1 alpha-2'),
    operator: z.string().describe('The mobile network, e.g. Orange'),
    generations: z.array(z.enum(networkGenerations)).describe('Radio generations offered there, e.g. ["4G", "5G"]'),
  }),
  'PlanNetwork',
  'both',
);

/** What a plan is, shown to partners and operators alike, with what a traveller gets (§5). */
const planBase = z.object({
  id: z.string(),
  name: z.string(),
  countries: z.array(z.string()),
  region: z.string().nullable(),
  dataMb: z.number().int().nullable().describe('Data at full speed; null for an unlimited plan'),
  validityDays: z.number().int(),
  unlimited: z.boolean(),
  fairUseMb: z.number().int().nullable().describe('Unlimited plans: the data at full speed before the speed is reduced; null otherwise'),
  throttleKbps: z.number().int().nullable().describe('Unlimited plans: the speed past `fairUseMb`, in kbit/s; null otherwise'),
  networks: z.array(planNetworkView).describe('One entry per country and operator'),
  voice: z.boolean(),
  sms: z.boolean(),
  kycRequired: z.boolean().describe('The traveller must prove their identity before the eSIM works'),
  topUpable: z.boolean().describe('More data can be added to the eSIM with a top-up order (§13)'),
  activationPolicy: z
    .enum(activationPolicies)
    .describe('When validity starts: `first_use` (first use on the network), `on_install` (profile installed) or `on_purchase`'),
});

/** §5 plan view: `wholesalePrice` is the only price; margins and suppliers have no field here to leak through. */
export const planView = component(
  planBase.extend({
    wholesalePrice: z.number().int().describe('Your price in minor units (cents) of `currency`, for your tier'),
    currency: z.string(),
  }),
  'Plan',
  'public',
);

export const adminPlanView = component(
  planBase.extend({
    floorPrice: z.number().int(),
    retailPrice: z.number().int(),
    supplierSku: z.string(),
    supplierCost: z.number().int(),
    profileType: z.string().nullable().describe("The SM-DP+ profile type ordered for this plan; null for the SM-DP+'s default. Never shown to partners"),
    active: z.boolean(),
    currency: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  'AdminPlan',
  'admin',
);

function basePlan(plan: catalogV1.PartnerPlan | catalogV1.AdminPlan): z.input<typeof planBase> {
  return {
    id: plan.id,
    name: plan.name,
    countries: plan.countries,
    region: plan.region ?? null,
    dataMb: plan.unlimited ? null : plan.dataMb,
    validityDays: plan.validityDays,
    unlimited: plan.unlimited,
    fairUseMb: plan.fairUseMb ?? null,
    throttleKbps: plan.throttleKbps ?? null,
    networks: plan.networks.map((network) => ({
      country: network.country,
      operator: network.operator,
      generations: network.generations as (typeof networkGenerations)[number][],
    })),
    voice: plan.voice,
    sms: plan.sms,
    kycRequired: plan.kycRequired,
    topUpable: plan.topUpable,
    activationPolicy: plan.activationPolicy as (typeof activationPolicies)[number],
  };
}

export function toPlanView(plan: catalogV1.PartnerPlan): z.input<typeof planView> {
  return { ...basePlan(plan), wholesalePrice: Number(plan.wholesalePrice), currency: plan.currency };
}

export function toAdminPlanView(plan: catalogV1.AdminPlan): z.input<typeof adminPlanView> {
  return {
    ...basePlan(plan),
    floorPrice: Number(plan.floorPrice),
    retailPrice: Number(plan.retailPrice),
    supplierSku: plan.supplierSku,
    supplierCost: Number(plan.supplierCost),
    profileType: plan.profileType ?? null,
    active: plan.active,
    currency: plan.currency,
    createdAt: plan.createdAt,
    updatedAt: plan.updatedAt,
  };
}
