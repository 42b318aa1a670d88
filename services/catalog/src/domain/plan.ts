import type { ActivationPolicy, NetworkGeneration } from '@esim/vocabulary';

/** One operator a plan uses in one country, and the radio generations it offers there. */
export interface PlanNetwork {
  country: string;
  operator: string;
  generations: NetworkGeneration[];
}

/** A plan as the catalog holds it. Money is integer cents (pg parses int8 as number; every amount is < 2^53). */
export interface Plan {
  id: string;
  name: string;
  countries: string[];
  region: string | null;
  /** Null exactly when `unlimited`. */
  dataMb: number | null;
  validityDays: number;
  floorPrice: number;
  retailPrice: number;
  supplierSku: string;
  supplierCost: number;
  active: boolean;
  /** What a traveller gets (contract §5). An unlimited plan has a fair-use allowance and the speed after it. */
  unlimited: boolean;
  fairUseMb: number | null;
  throttleKbps: number | null;
  networks: PlanNetwork[];
  voice: boolean;
  sms: boolean;
  kycRequired: boolean;
  topUpable: boolean;
  activationPolicy: ActivationPolicy;
  /** The SM-DP+ profile type to order (operators only); null: the SM-DP+'s default. */
  profileType: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields an operator sets; id and timestamps belong to the catalog. */
export type PlanFields = Omit<Plan, 'id' | 'createdAt' | 'updatedAt'>;

/** An update: only the fields present change; `region: null` clears the region. */
export type PlanPatch = Partial<PlanFields>;

export const planFieldNames = [
  'name',
  'countries',
  'region',
  'dataMb',
  'validityDays',
  'floorPrice',
  'retailPrice',
  'supplierSku',
  'supplierCost',
  'active',
  'unlimited',
  'fairUseMb',
  'throttleKbps',
  'networks',
  'voice',
  'sms',
  'kycRequired',
  'topUpable',
  'activationPolicy',
  'profileType',
] as const satisfies readonly (keyof PlanFields)[];

/** Defaults for the traveller fields a create leaves out: what every plan meant before they existed. */
export const travellerDefaults = {
  unlimited: false,
  fairUseMb: null,
  throttleKbps: null,
  networks: [],
  voice: false,
  sms: false,
  kycRequired: false,
  topUpable: true,
  activationPolicy: 'first_use',
  profileType: null,
} as const satisfies Partial<PlanFields>;
