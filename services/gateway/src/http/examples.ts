import { errorCatalog, problemType, type ErrorCode } from '@esim/errors';

/**
 * An example for every request and response body of the documents (#19),
 * drawn from its JSON Schema, so a new route has one without anyone writing
 * it. A schema's own `examples` (zod `.meta({ examples })`) win; then the
 * field's name; then its type. Redocly's `no-invalid-media-type-examples`
 * (the lint test) checks each one against its schema.
 */

type Schema = Record<string, any>;

const at = '2026-11-24T09:30:00.000Z';

/** The prefix of an `id` by the component that holds it (contract §3 id prefixes). */
const idPrefixes: [RegExp, string][] = [
  [/Order/, 'ord'],
  [/Partner/, 'ptn'],
  [/Key/, 'key'],
  [/Plan/, 'plan'],
  [/Ledger/, 'led'],
  [/Delivery/, 'dlv'],
  [/Audit/, 'aud'],
  [/Event/, 'evt'],
];
const ulid = '01jd4m8x2q7v5c3b9n6k0w1y2z';

const byName: Record<string, unknown> = {
  orderId: `ord_${ulid}`,
  partnerId: `ptn_${ulid}`,
  planId: `plan_${ulid}`,
  keyId: `key_${ulid}`,
  eventId: `evt_${ulid}`,
  requestId: `req_${ulid}`,
  clientRequestId: 'order-2026-0001',
  email: 'traveller@example.com',
  phoneNumber: '+33612345678',
  currency: 'USD',
  country: 'FR',
  countries: ['FR'],
  iccid: '8933000000000000001',
  webhookUrl: 'https://reseller.example/webhooks/esim',
  testWebhookUrl: 'https://reseller.example/webhooks/esim-test',
  accountId: `ptn_${ulid}_test`,
  key: 'sk_test_a1b2c3d4e5f6_Hy7kQ2xVbN4mTz9LcR3pWs8dFg6jKa5e',
  company: 'Reseller Ltd',
  name: 'Ada Lovelace',
  planName: 'France 5 GB / 30 days',
  password: 'correct horse battery',
  reference: 'WIRE-2026-0042',
  note: 'Bank transfer received',
  reason: 'Incomplete company details',
  prefix: 'a1b2c3d4',
  smdpAddress: 'smdp.supplier.example',
  activationCode: 'LPA:1$smdp.supplier.example$MATCH-0001',
  page: 1,
  limit: 20,
  total: 1,
  totalPages: 1,
  message: 'Hello from the platform',
  failureReason: null,
  matchingId: 'MATCH-0001',
  qrCode: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
};

function resolve(doc: Schema, schema: Schema): [Schema, string | undefined] {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').at(-1)!;
    return [doc.components?.schemas?.[name] ?? {}, name];
  }
  return [schema, undefined];
}

function sample(doc: Schema, raw: Schema, name: string | undefined, owner: string | undefined, depth: number): unknown {
  const [schema, component] = resolve(doc, raw);
  owner = component ?? owner;
  if (depth > 12) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) {
    const branch = union.find((b: Schema) => b.type !== 'null') ?? union[0];
    return sample(doc, branch, name, owner, depth + 1);
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: Schema) => sample(doc, s, name, owner, depth + 1)));
  const type = Array.isArray(schema.type) ? (schema.type.find((t: string) => t !== 'null') ?? 'null') : schema.type;
  if (name !== undefined && name in byName && fits(schema, byName[name])) return byName[name];
  if (type === 'object' || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries<Schema>(schema.properties ?? {})) out[key] = sample(doc, child, key, owner, depth + 1);
    return out;
  }
  if (type === 'array') {
    const item = sample(doc, schema.items ?? {}, undefined, owner, depth + 1);
    return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
  }
  if (type === 'string') return sampleString(schema, name, owner);
  if (type === 'integer' || type === 'number') return sampleNumber(schema, name);
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  return {};
}

function fits(schema: Schema, value: unknown): boolean {
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.type !== undefined && !type.includes(Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value)) {
    return typeof value === 'number' && type.includes('number');
  }
  if (typeof value === 'string' && schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) return false;
  return true;
}

function sampleString(schema: Schema, name: string | undefined, owner: string | undefined): string {
  if (schema.format === 'date-time' || /At$/.test(name ?? '')) return at;
  if (schema.format === 'email') return 'traveller@example.com';
  if (schema.format === 'uri') return 'https://reseller.example/webhooks/esim';
  if (name === 'id') return `${idPrefixes.find(([re]) => re.test(owner ?? ''))?.[1] ?? 'id'}_${ulid}`;
  const text = name ?? 'text';
  const min = schema.minLength ?? 0;
  return text.length >= min ? text.slice(0, schema.maxLength ?? text.length) : text.padEnd(min, 'x');
}

function sampleNumber(schema: Schema, name: string | undefined): number {
  // zod bounds every int by ±(2^53 − 1): not a bound worth showing.
  const stated = schema.minimum > Number.MIN_SAFE_INTEGER ? schema.minimum : undefined;
  const low = stated ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
  const wanted = /amount|price|balance|Balance|Price|Amount/.test(name ?? '') ? 1500 : (low ?? 1);
  return Math.min(Math.max(wanted, low ?? wanted), schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : wanted);
}

/** A problem body for `status`: a code the operation's description names if there is one, else the catalog's first of that status. */
export function problemExample(status: number, description: string): Record<string, unknown> | undefined {
  const codes = (Object.keys(errorCatalog) as ErrorCode[]).filter((code) => errorCatalog[code].status === status);
  if (codes.length === 0) return undefined;
  const code = codes.find((c) => description.includes(c)) ?? codes[0]!;
  const detail = code === 'VALIDATION_ERROR' ? 'limit: must be a whole number ≥ 1 and ≤ 100' : errorCatalog[code].title + '.';
  return {
    type: problemType(code),
    title: errorCatalog[code].title,
    status,
    code,
    detail,
    requestId: `req_${ulid}`,
    ...(code === 'VALIDATION_ERROR' ? { errors: [{ path: 'limit', message: 'must be a whole number ≥ 1 and ≤ 100' }] } : {}),
  };
}

export function exampleFor(doc: Schema, schema: Schema): unknown {
  return sample(doc, schema, undefined, undefined, 0);
}

/** The codes a status can carry, for a response's description. */
export function codesOf(status: number): ErrorCode[] {
  return (Object.keys(errorCatalog) as ErrorCode[]).filter((code) => errorCatalog[code].status === status);
}
