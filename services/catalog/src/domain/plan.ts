/** A plan as the catalog holds it. Money is integer cents (pg parses int8 as number; every amount is < 2^53). */
export interface Plan {
  id: string;
  name: string;
  countries: string[];
  region: string | null;
  dataMb: number;
  validityDays: number;
  floorPrice: number;
  retailPrice: number;
  supplierSku: string;
  supplierCost: number;
  active: boolean;
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
] as const satisfies readonly (keyof PlanFields)[];
