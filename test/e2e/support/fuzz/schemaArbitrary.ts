/**
 * fast-check arbitraries from the OpenAPI documents' JSON Schemas: values a
 * schema accepts, and the same values broken the ways clients break them
 * (a field missing, an unknown field, a wrong type, a different document).
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;
export type Components = Record<string, Schema>;

const countries = ['FR', 'DE', 'US', 'fr', 'JP', 'ZZ', 'ES'];

function resolve(schema: Schema, components: Components): Schema {
  const ref = schema.$ref as string | undefined;
  return ref ? (components[ref.split('/').at(-1)!] ?? {}) : schema;
}

/** URLs a partner might set: public, private, loopback, metadata, odd schemes (fc.webUrl is too slow for thousands). */
const webhookLike = fc.oneof(
  fc.constantFrom('https://hooks.example.com/esim', 'http://hooks.example.com/esim', 'https://127.0.0.1/x', 'https://169.254.169.254/latest', 'https://[::1]/', 'ftp://example.com/', 'https://localhost:8080/'),
  fc.stringMatching(/^[a-z]{1,12}$/).map((host) => `https://${host}.example.com/hook`),
);

function stringFrom(schema: Schema): fc.Arbitrary<string> {
  const maxLength = Math.min(schema.maxLength ?? 40, 60);
  const minLength = Math.min(schema.minLength ?? 0, maxLength);
  if (schema.format === 'email') return fc.emailAddress().filter((e) => e.length <= maxLength || maxLength < 6);
  if (schema.format === 'uri' || schema.format === 'url') return webhookLike;
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.pattern === '^[A-Za-z]{2}$') return fc.constantFrom(...countries);
  if (schema.pattern === '^[1-9][0-9]{0,8}$') return fc.integer({ min: 1, max: 120 }).map(String);
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= maxLength);
  return fc.string({ minLength, maxLength });
}

/** Values the schema accepts (as far as these keywords go), depth-bounded. */
export function valid(schema: Schema | undefined, components: Components, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(null);
  const s = resolve(schema, components);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  if (s.const !== undefined) return fc.constant(s.const);
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((alt) => valid(alt, components, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return stringFrom(s);
    case 'integer':
      return fc.integer({ min: s.minimum ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : -1_000_000), max: s.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valid(s.items, components, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 4, 4)) });
    case 'object':
    default: {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      const record = Object.fromEntries(Object.entries(properties).map(([key, sub]) => [key, valid(sub, components, depth + 1)]));
      return fc.record(record, { requiredKeys: (s.required ?? []).filter((key: string) => key in properties) });
    }
  }
}

/** A small JSON value of any shape, for wrong types and foreign documents. */
export const anyJson = fc.jsonValue({ maxDepth: 2 });

/** A valid value broken one way: a field dropped, an unknown field added, a field of the wrong type or absurd size. */
export function mutated(schema: Schema | undefined, components: Components): fc.Arbitrary<unknown> {
  const base = valid(schema, components);
  const objectMutation = fc.tuple(base, fc.nat(), anyJson, fc.constantFrom('drop', 'add', 'retype', 'huge', 'negative')).map(([value, pick, junk, how]) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return junk;
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const key = keys.length > 0 ? keys[pick % keys.length]! : 'unexpected';
    if (how === 'drop') delete copy[key];
    else if (how === 'add') copy.role = 'admin';
    else if (how === 'retype') copy[key] = junk;
    else if (how === 'huge') copy[key] = typeof copy[key] === 'number' ? Number.MAX_SAFE_INTEGER * 4 : 'x'.repeat(5_000);
    else copy[key] = typeof copy[key] === 'number' ? -(copy[key] as number) - 1 : '';
    return copy;
  });
  return fc.oneof({ arbitrary: objectMutation, weight: 4 }, { arbitrary: anyJson, weight: 1 });
}
