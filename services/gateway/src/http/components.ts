import { z } from 'zod';

/**
 * Named OpenAPI components, one registry per listener, so the public
 * document never mentions an admin-only schema (AdminPlan's supplier fields,
 * the audit log). zod's global registry would share them across both.
 */
export const publicComponents = z.registry<{ id: string }>();
export const adminComponents = z.registry<{ id: string }>();

export function component<T extends z.ZodType>(schema: T, id: string, on: 'public' | 'admin' | 'both'): T {
  if (on !== 'admin') publicComponents.add(schema, { id });
  if (on !== 'public') adminComponents.add(schema, { id });
  return schema;
}
