import { globalRegistry, type z } from 'zod';

/**
 * How a zod schema becomes JSON Schema in the OpenAPI documents, beyond
 * fastify-type-provider-zod's defaults (whose override this replaces, so
 * its two rules are repeated here).
 */

/** Schemas whose wire form differs from their zod input: a query string that is an integer to a client. */
const documentedAs = new WeakMap<z.core.$ZodType, Record<string, unknown>>();

/**
 * Documents `schema` as `jsonSchema` while it keeps validating as written. A
 * query parameter arrives as text, so `page` is parsed from a digit string;
 * a generator must still see `integer` with its bounds (#19), or typed
 * clients refuse `{ page: 1 }`.
 */
export function documentAs<T extends z.ZodType>(schema: T, jsonSchema: Record<string, unknown>): T {
  documentedAs.set(schema, jsonSchema);
  return schema;
}

interface OverrideContext {
  zodSchema: z.core.$ZodType;
  jsonSchema: Record<string, unknown>;
}

/** No route schema uses z.date() or z.undefined(), so the library's io-dependent rules for them are not needed. */
export function overrideJsonSchema(ctx: OverrideContext): void {
  {
    const replacement = documentedAs.get(ctx.zodSchema);
    if (replacement) {
      for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
      Object.assign(ctx.jsonSchema, replacement);
      return;
    }
    const def = (ctx.zodSchema as { _zod: { def: { type: string } } })._zod.def;
    // fastify-type-provider-zod's rule: no empty anyOf branches.
    if (def.type === 'union' && Array.isArray(ctx.jsonSchema.anyOf)) {
      ctx.jsonSchema.anyOf = (ctx.jsonSchema.anyOf as object[]).filter((branch) => Object.keys(branch).length > 0);
    }
    // `.describe()` and `.meta({ examples })` live in zod's global registry, which the components' registries do not read.
    const meta = globalRegistry.get(ctx.zodSchema);
    if (meta?.description !== undefined && ctx.jsonSchema.description === undefined) ctx.jsonSchema.description = meta.description;
    if (Array.isArray(meta?.examples) && ctx.jsonSchema.examples === undefined) ctx.jsonSchema.examples = meta.examples;
  }
}
