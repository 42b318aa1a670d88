import { z } from 'zod';
import type { catalogV1 } from '@esim/proto';
import { component } from '../http/components.js';

/** What a plan is, shown to partners and operators alike. */
const planBase = z.object({
  id: z.string(),
  name: z.string(),
  countries: z.array(z.string()),
  region: z.string().nullable(),
  dataMb: z.number().int(),
  validityDays: z.number().int(),
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
    dataMb: plan.dataMb,
    validityDays: plan.validityDays,
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
    active: plan.active,
    currency: plan.currency,
    createdAt: plan.createdAt,
    updatedAt: plan.updatedAt,
  };
}
