import type { ServiceHandlers } from '@esim/grpc';
import type { Pool } from '@esim/postgres';
import type { catalogV1 } from '@esim/proto';
import { adminGetPlan } from '../domain/adminGetPlan.js';
import { adminListPlans } from '../domain/adminListPlans.js';
import { createPlan } from '../domain/createPlan.js';
import { getPlanPrice } from '../domain/getPlanPrice.js';
import { listPlans } from '../domain/listPlans.js';
import type { PlanCache } from '../domain/planCache.js';
import { updatePlan } from '../domain/updatePlan.js';
import { adminPlanView, partnerPlanView, planPatch } from './views.js';

export interface CatalogDeps {
  pool: Pool;
  cache: PlanCache;
  currency: string;
}

type CatalogMethods = (typeof catalogV1.CatalogService)['method'];

/** Transport only: each RPC converts its message, calls one use case, converts the answer. */
export function catalogHandlers(deps: CatalogDeps): ServiceHandlers<CatalogMethods> {
  const { cache, currency } = deps;
  const audit = (context: { operator: string; requestId: string; note: string } | undefined) => ({
    operator: context?.operator ?? '',
    requestId: context?.requestId ?? '',
    note: context?.note ?? '',
  });
  return {
    async listPlans(request) {
      const { plans, total } = listPlans(cache, request);
      return { plans: plans.map((priced) => partnerPlanView(priced, currency)), total };
    },
    async getPlanPrice(request) {
      const { plan, price } = await getPlanPrice({ cache, db: deps.pool }, request);
      return {
        planId: plan.id,
        planName: plan.name,
        price: BigInt(price),
        currency,
        supplierSku: plan.supplierSku,
        countries: plan.countries,
        region: plan.region ?? undefined,
        // An unlimited plan's bundle is metered against its fair-use allowance (docs/decisions.md).
        dataMb: plan.dataMb ?? plan.fairUseMb ?? 0,
        validityDays: plan.validityDays,
        profileType: plan.profileType ?? undefined,
        unlimited: plan.unlimited,
        topUpable: plan.topUpable,
      };
    },
    async adminListPlans(request) {
      const { plans, total } = adminListPlans(cache, request);
      return { plans: plans.map((plan) => adminPlanView(plan, currency)), total };
    },
    async adminGetPlan(request) {
      return adminPlanView(await adminGetPlan({ cache, db: deps.pool }, request.id), currency);
    },
    async createPlan(request) {
      return adminPlanView(await createPlan(deps, planPatch(request.plan, 'create'), audit(request.audit)), currency);
    },
    async updatePlan(request) {
      return adminPlanView(await updatePlan(deps, request.id, planPatch(request.plan, 'update'), audit(request.audit)), currency);
    },
  };
}
