import { createHash } from 'node:crypto';
import type { ActivationPolicy } from '@esim/vocabulary';
import type { PlanFields } from './plan.js';
import { localNetworks, regionalNetworks } from './seedNetworks.js';

/**
 * The development catalog: believable local and regional plans, generated
 * from the small tables below with integer arithmetic only, so every
 * database gets exactly the same plans, the same prices and the same ids.
 */
export const seedName = 'dev-catalog-v2';

interface Size {
  /** Data at full speed; for an unlimited plan, its fair-use allowance. */
  gb: number;
  days: number;
  /** Supplier cost of this bundle relative to 1 GB, in per-mille: bigger bundles are cheaper per GB. */
  costPerMille: number;
  /** An unlimited plan, slowed to this speed past `gb`. */
  throttleKbps?: number;
}

const sizes = {
  s1: { gb: 1, days: 7, costPerMille: 1_000 },
  s3: { gb: 3, days: 15, costPerMille: 2_600 },
  s5: { gb: 5, days: 30, costPerMille: 4_000 },
  s10: { gb: 10, days: 30, costPerMille: 7_000 },
  s20: { gb: 20, days: 30, costPerMille: 12_000 },
} as const satisfies Record<string, Size>;

const unlimited7: Size = { gb: 10, days: 7, costPerMille: 8_000, throttleKbps: 1_024 };
const unlimited15: Size = { gb: 20, days: 15, costPerMille: 14_000, throttleKbps: 512 };

const popularSizes: Size[] = [sizes.s1, sizes.s3, sizes.s5, sizes.s10, sizes.s20];
const basicSizes: Size[] = [sizes.s1, sizes.s5, sizes.s10];

/** [code, name, supplier cost of 1 GB in cents, sizes offered]. */
const localMarkets: [string, string, number, Size[]][] = [
  ['US', 'United States', 120, popularSizes],
  ['GB', 'United Kingdom', 110, popularSizes],
  ['FR', 'France', 130, popularSizes],
  ['DE', 'Germany', 130, popularSizes],
  ['ES', 'Spain', 120, popularSizes],
  ['IT', 'Italy', 125, popularSizes],
  ['JP', 'Japan', 180, popularSizes],
  ['KR', 'South Korea', 170, popularSizes],
  ['TH', 'Thailand', 90, popularSizes],
  ['SG', 'Singapore', 160, popularSizes],
  ['AE', 'United Arab Emirates', 350, popularSizes],
  ['TR', 'Turkey', 150, popularSizes],
  ['MX', 'Mexico', 200, popularSizes],
  ['CA', 'Canada', 280, popularSizes],
  ['AU', 'Australia', 220, popularSizes],
  ['PT', 'Portugal', 120, basicSizes],
  ['NL', 'Netherlands', 130, basicSizes],
  ['BE', 'Belgium', 135, basicSizes],
  ['CH', 'Switzerland', 260, basicSizes],
  ['AT', 'Austria', 130, basicSizes],
  ['GR', 'Greece', 140, basicSizes],
  ['IE', 'Ireland', 125, basicSizes],
  ['SE', 'Sweden', 130, basicSizes],
  ['NO', 'Norway', 240, basicSizes],
  ['DK', 'Denmark', 135, basicSizes],
  ['FI', 'Finland', 130, basicSizes],
  ['PL', 'Poland', 100, basicSizes],
  ['CZ', 'Czechia', 110, basicSizes],
  ['HU', 'Hungary', 115, basicSizes],
  ['HR', 'Croatia', 120, basicSizes],
  ['RO', 'Romania', 95, basicSizes],
  ['IS', 'Iceland', 230, basicSizes],
  ['CN', 'China', 210, basicSizes],
  ['HK', 'Hong Kong', 150, basicSizes],
  ['TW', 'Taiwan', 140, basicSizes],
  ['VN', 'Vietnam', 85, basicSizes],
  ['ID', 'Indonesia', 95, basicSizes],
  ['MY', 'Malaysia', 90, basicSizes],
  ['PH', 'Philippines', 110, basicSizes],
  ['IN', 'India', 80, basicSizes],
  ['BR', 'Brazil', 190, basicSizes],
  ['AR', 'Argentina', 240, basicSizes],
  ['CL', 'Chile', 210, basicSizes],
  ['CO', 'Colombia', 200, basicSizes],
  ['PE', 'Peru', 220, basicSizes],
  ['SA', 'Saudi Arabia', 320, basicSizes],
  ['QA', 'Qatar', 340, basicSizes],
  ['IL', 'Israel', 180, basicSizes],
  ['EG', 'Egypt', 260, basicSizes],
  ['MA', 'Morocco', 240, basicSizes],
  ['ZA', 'South Africa', 300, basicSizes],
  ['KE', 'Kenya', 330, basicSizes],
  ['NZ', 'New Zealand', 230, basicSizes],
];

const europe = 'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE GB CH NO IS LI RS ME MK AL BA';
const asia = 'CN HK MO TW JP KR SG MY TH VN ID PH IN LK KH LA BD PK NP MN KZ UZ';
const northAmerica = 'US CA MX PR';
const latinAmerica = 'MX GT BZ SV HN NI CR PA CO VE EC PE BO BR PY UY AR CL DO';
const middleEast = 'AE SA QA KW BH OM JO IL TR EG IQ';
const africa = 'ZA EG MA TN KE TZ UG RW NG GH SN CI CM ET ZM MZ BW NA MU';
const oceania = 'AU NZ FJ PG NC PF WS TO VU';
/** Where a global plan works: every regional country with a reliable roaming partner. */
const global = [europe, asia, northAmerica, 'BR AR CL CO PE', 'AE SA QA IL TR', 'ZA EG MA KE NG', 'AU NZ'].join(' ');

/** [region name, SKU slug, countries, supplier cost of 1 GB in cents, sizes offered]. */
const regionalMarkets: [string, string, string, number, Size[]][] = [
  ['Europe', 'EUROPE', europe, 140, popularSizes],
  ['Asia', 'ASIA', asia, 200, [sizes.s3, sizes.s5, sizes.s10]],
  ['North America', 'NORTHAM', northAmerica, 250, [sizes.s3, sizes.s5, sizes.s10]],
  ['Latin America', 'LATAM', latinAmerica, 320, [sizes.s3, sizes.s5, sizes.s10]],
  ['Middle East', 'MIDEAST', middleEast, 400, [sizes.s3, sizes.s5, sizes.s10]],
  ['Africa', 'AFRICA', africa, 450, [sizes.s3, sizes.s5, sizes.s10]],
  ['Oceania', 'OCEANIA', oceania, 300, [sizes.s3, sizes.s5, sizes.s10]],
  ['Global', 'GLOBAL', global, 600, [sizes.s1, sizes.s3, sizes.s5, sizes.s10]],
];

/** Unlimited plans (added with the second seed, after every plan of the first, so earlier ids stay put): [code, slug, countries, cost of 1 GB]. */
const unlimitedMarkets: [string, string, string, number][] = [
  ['United States', 'US', 'US', 120],
  ['France', 'FR', 'FR', 130],
  ['Spain', 'ES', 'ES', 120],
  ['Italy', 'IT', 'IT', 125],
  ['Japan', 'JP', 'JP', 180],
  ['Thailand', 'TH', 'TH', 90],
  ['Turkey', 'TR', 'TR', 150],
  ['Europe', 'EUROPE', europe, 140],
];

/** Markets whose larger local plans come with a local number for calls and texts. */
const voiceMarkets = new Set(['US', 'GB', 'CA', 'AU', 'DE', 'FR']);
/** Where the local rules make the operator check the traveller's identity before the eSIM works. */
const kycMarkets = new Set(['CN', 'IN', 'SA', 'QA', 'TW']);

export interface SeedPlan extends PlanFields {
  id: string;
}

/** Every seed plan, in a fixed order: local markets first, then regions. */
export function seedPlans(): SeedPlan[] {
  const plans: SeedPlan[] = [];
  for (const [code, name, costPerGb, offered] of localMarkets) {
    for (const size of offered) plans.push(seedPlan(name, code, [code], null, costPerGb, size, plans.length));
  }
  for (const [region, slug, countries, costPerGb, offered] of regionalMarkets) {
    const codes = [...new Set(countries.split(' '))].sort();
    for (const size of offered) plans.push(seedPlan(region, slug, codes, region, costPerGb, size, plans.length));
  }
  for (const [label, slug, countries, costPerGb] of unlimitedMarkets) {
    const codes = [...new Set(countries.split(' '))].sort();
    const region = codes.length > 1 ? label : null;
    for (const size of [unlimited7, unlimited15]) plans.push(seedPlan(label, slug, codes, region, costPerGb, size, plans.length));
  }
  return plans;
}

function seedPlan(label: string, slug: string, countries: string[], region: string | null, costPerGb: number, size: Size, index: number): SeedPlan {
  const unlimited = size.throttleKbps !== undefined;
  const supplierSku = unlimited ? `SKU-${slug}-UNL-${size.days}D` : `SKU-${slug}-${size.gb}GB-${size.days}D`;
  const supplierCost = roundUpTo(Math.floor((costPerGb * size.costPerMille) / 1_000), 5);
  // Our floor keeps about 40% over cost and ends in 49 or 99; retail nearly doubles it and ends in 99.
  const floorPrice = roundUpTo(Math.floor((supplierCost * 140) / 100) + 1, 50) - 1;
  const retailPrice = roundUpTo(Math.floor((floorPrice * 190) / 100) + 1, 100) - 1;
  return {
    id: seedPlanId(supplierSku, index),
    name: unlimited ? `${label} Unlimited / ${size.days} days` : `${label} ${size.gb} GB / ${size.days} days`,
    countries,
    region,
    dataMb: unlimited ? null : size.gb * 1_024,
    validityDays: size.days,
    floorPrice,
    retailPrice,
    supplierSku,
    supplierCost,
    active: true,
    ...travellerFacts(countries, region, size),
  };
}

/**
 * What a traveller gets with a seed plan, from the tables above: local
 * plans list their country's operators, regional ones a roaming partner per
 * country; big local plans in a few markets include a number; KYC markets
 * start the validity at purchase (the check happens then) and cannot be
 * topped up; regional 1 GB plans start at installation.
 */
function travellerFacts(countries: string[], region: string | null, size: Size) {
  const local = region === null ? countries[0] : undefined;
  const kycRequired = local !== undefined && kycMarkets.has(local);
  const withNumber = local !== undefined && voiceMarkets.has(local) && size.gb >= 10 && size.throttleKbps === undefined;
  const activationPolicy: ActivationPolicy = kycRequired ? 'on_purchase' : region !== null && size.gb === 1 ? 'on_install' : 'first_use';
  return {
    unlimited: size.throttleKbps !== undefined,
    fairUseMb: size.throttleKbps === undefined ? null : size.gb * 1_024,
    throttleKbps: size.throttleKbps ?? null,
    networks: local !== undefined ? localNetworks(local) : regionalNetworks(countries),
    voice: withNumber,
    sms: withNumber,
    kycRequired,
    topUpable: !kycRequired,
    activationPolicy,
    profileType: null,
  };
}

function roundUpTo(value: number, step: number): number {
  return Math.ceil(value / step) * step;
}

/** 2025-01-01T00:00:00Z: the ULID time of the first seed plan; later plans follow one millisecond apart. */
const seedEpochMs = 1_735_689_600_000;
const crockford = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A ULID-shaped id (what `newId('plan')` makes) derived from the SKU, so a
 * seed plan has the same id in every database and ids sort in seed order.
 */
export function seedPlanId(supplierSku: string, index: number): string {
  const time = BigInt(seedEpochMs + index);
  const random = BigInt(`0x${createHash('sha256').update(supplierSku).digest('hex').slice(0, 20)}`);
  return `plan_${base32(time, 10)}${base32(random, 16)}`;
}

function base32(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = crockford[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}
