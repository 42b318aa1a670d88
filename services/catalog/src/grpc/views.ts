import type { MessageInitShape } from '@bufbuild/protobuf';
import type { catalogV1 } from '@esim/proto';
import type { Plan, PlanNetwork, PlanPatch } from '../domain/plan.js';
import type { PricedPlan } from '../domain/planCache.js';

/**
 * Conversions between proto messages and domain values, in one place.
 * int64 money crosses as bigint and lives as number inside (amounts are
 * bounded far below 2^53); proto3's "unset" becomes `undefined`.
 */

/** What partners and operators are both shown; picked field by field, so nothing internal rides along. */
function planBase(plan: Plan) {
  return {
    id: plan.id,
    name: plan.name,
    countries: plan.countries,
    region: plan.region ?? undefined,
    dataMb: plan.dataMb ?? 0,
    validityDays: plan.validityDays,
    unlimited: plan.unlimited,
    fairUseMb: plan.fairUseMb ?? undefined,
    throttleKbps: plan.throttleKbps ?? undefined,
    networks: plan.networks.map((network) => ({ country: network.country, operator: network.operator, generations: network.generations })),
    voice: plan.voice,
    sms: plan.sms,
    kycRequired: plan.kycRequired,
    topUpable: plan.topUpable,
    activationPolicy: plan.activationPolicy,
  };
}

/** The partner view: the message has no field for internal prices or the supplier, so none can leak. */
export function partnerPlanView({ plan, price }: PricedPlan, currency: string): MessageInitShape<typeof catalogV1.PartnerPlanSchema> {
  return { ...planBase(plan), wholesalePrice: BigInt(price), currency };
}

export function adminPlanView(plan: Plan, currency: string): MessageInitShape<typeof catalogV1.AdminPlanSchema> {
  return {
    ...planBase(plan),
    floorPrice: BigInt(plan.floorPrice),
    retailPrice: BigInt(plan.retailPrice),
    supplierSku: plan.supplierSku,
    supplierCost: BigInt(plan.supplierCost),
    profileType: plan.profileType ?? undefined,
    active: plan.active,
    currency,
    createdAt: plan.createdAt.toISOString(),
    updatedAt: plan.updatedAt.toISOString(),
  };
}

/**
 * The fields an operator set. Countries count as set when `setCountries` is
 * true or the list is non-empty (an empty list cannot be meant as a value
 * otherwise); `clearRegion` sets the region to null and wins over `region`.
 * On create, countries are always taken, so a missing list is reported.
 */
export function planPatch(fields: catalogV1.PlanFields | undefined, mode: 'create' | 'update'): PlanPatch {
  const patch: PlanPatch = {};
  if (!fields) return patch;
  if (fields.name !== undefined) patch.name = fields.name;
  if (mode === 'create' || fields.setCountries || fields.countries.length > 0) patch.countries = fields.countries;
  if (fields.clearRegion) patch.region = null;
  else if (fields.region !== undefined) patch.region = fields.region;
  if (fields.clearDataMb) patch.dataMb = null;
  else if (fields.dataMb !== undefined) patch.dataMb = fields.dataMb;
  if (fields.validityDays !== undefined) patch.validityDays = fields.validityDays;
  if (fields.floorPrice !== undefined) patch.floorPrice = Number(fields.floorPrice);
  if (fields.retailPrice !== undefined) patch.retailPrice = Number(fields.retailPrice);
  if (fields.supplierSku !== undefined) patch.supplierSku = fields.supplierSku;
  if (fields.supplierCost !== undefined) patch.supplierCost = Number(fields.supplierCost);
  if (fields.active !== undefined) patch.active = fields.active;
  if (fields.unlimited !== undefined) patch.unlimited = fields.unlimited;
  if (fields.clearFairUseMb) patch.fairUseMb = null;
  else if (fields.fairUseMb !== undefined) patch.fairUseMb = fields.fairUseMb;
  if (fields.clearThrottleKbps) patch.throttleKbps = null;
  else if (fields.throttleKbps !== undefined) patch.throttleKbps = fields.throttleKbps;
  if (fields.setNetworks || fields.networks.length > 0) {
    patch.networks = fields.networks.map((network) => ({
      country: network.country,
      operator: network.operator,
      generations: network.generations as PlanNetwork['generations'],
    }));
  }
  if (fields.voice !== undefined) patch.voice = fields.voice;
  if (fields.sms !== undefined) patch.sms = fields.sms;
  if (fields.kycRequired !== undefined) patch.kycRequired = fields.kycRequired;
  if (fields.topUpable !== undefined) patch.topUpable = fields.topUpable;
  // Checked against the vocabulary by the plan rules; an unknown value is named there.
  if (fields.activationPolicy !== undefined) patch.activationPolicy = fields.activationPolicy as PlanPatch['activationPolicy'];
  if (fields.clearProfileType) patch.profileType = null;
  else if (fields.profileType !== undefined) patch.profileType = fields.profileType;
  return patch;
}
