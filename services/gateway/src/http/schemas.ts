import { z } from 'zod';
import { errorCodes } from '@esim/errors';
import { component } from './components.js';
import { documentAs } from './jsonSchema.js';

/** RFC 9457 problem details, as every error on every listener is answered. */
export const problemSchema = component(
  z.object({
    type: z.string().describe('URI reference naming the problem; docs/errors.md explains each'),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(errorCodes as [string, ...string[]]).describe('Stable machine-readable code'),
    detail: z.string(),
    requestId: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional().describe('Every failing field, on validation errors'),
  }),
  'Problem',
  'both',
);

/** Documents the problem answers a route can give, for the OpenAPI document. */
export function problems<const S extends readonly number[]>(...statuses: S): Record<S[number], typeof problemSchema> {
  return Object.fromEntries(statuses.map((s) => [s, problemSchema])) as Record<S[number], typeof problemSchema>;
}

/** Validated as the digits a query string carries, documented as the integer a client sends (#19). */
const positiveInt = (name: string, fallback: number, max?: number) =>
  documentAs(
    positiveIntText(name, fallback, max),
    { type: 'integer', minimum: 1, ...(max === undefined ? { maximum: 999_999_999 } : { maximum: max }), default: fallback, description: name },
  );

const positiveIntText = (name: string, fallback: number, max?: number) =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/, `must be a whole number ≥ 1${max ? ` and ≤ ${max}` : ''}`)
    .transform(Number)
    .refine((n) => max === undefined || n <= max, `must be a whole number ≥ 1 and ≤ ${max}`)
    .optional()
    .transform((n) => n ?? fallback)
    .describe(name);

/** §3 paging: page ≥ 1 (default 1), limit 1–100 (default 20, catalog 50); anything else is 400. */
export function pageQuery(defaultLimit = 20) {
  return {
    page: positiveInt('1-based page number', 1),
    limit: positiveInt(`page size, 1–100 (default ${defaultLimit})`, defaultLimit, 100),
  };
}

export const paginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), pagination: paginationSchema });
}

export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}
