import type { RouteOptions } from 'fastify';
import { errorCatalog, type ErrorCode } from '@esim/errors';
import { problems } from './schemas.js';

/** Methods whose requests fastify reads a body for: they can be too large (413) or of the wrong type (415). */
const bodyless = new Set(['GET', 'HEAD']);

/**
 * The problem answers the HTTP layer and the platform can give on a route
 * whatever the route itself does (§3): 400 for a path with broken
 * percent-encoding (on every route) or a malformed body, 413 and 415 where
 * a body is read, 404 where the path names an id (one longer than any id is
 * refused before the route), 503 when a dependency is down. A route's own
 * list adds to these; nothing the API answers is missing from its document.
 */
export function edgeStatuses(route: Pick<RouteOptions, 'method' | 'url'>): number[] {
  const methods = [route.method].flat();
  const statuses = [400, 503];
  if (methods.some((m) => !bodyless.has(m))) statuses.push(413, 415);
  if (route.url.includes(':')) statuses.push(404);
  return statuses.sort();
}

/** onRoute: every documented operation lists the edge statuses as problem answers, besides its own. */
export function documentEdgeProblems(route: RouteOptions): void {
  const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
  if (schema?.hide) return;
  route.schema = { ...schema, response: { ...problems(...edgeStatuses(route)), ...schema?.response } };
}

const titleByStatus = new Map<number, string[]>();
for (const [code, { status }] of Object.entries(errorCatalog) as Array<[ErrorCode, { status: number }]>) {
  titleByStatus.set(status, [...(titleByStatus.get(status) ?? []), code]);
}

type Responses = Record<string, { description?: string; content?: Record<string, { schema?: { $ref?: string } }> }>;

/**
 * The generated document says `application/json` and "Default Response" for
 * every answer; a problem is `application/problem+json` (§3), and its
 * description lists the codes that status can carry.
 */
export function problemMediaTypes<T extends { paths?: Record<string, Record<string, { responses?: Responses }>> }>(document: T): T {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = response.content?.['application/json'];
        if (!json?.schema?.$ref?.endsWith('/Problem')) continue;
        response.content = { 'application/problem+json': json };
        const codes = titleByStatus.get(Number(status)) ?? [];
        response.description = `Problem (RFC 9457); code ${codes.join(' or ')}${response.description?.includes('](') ? `. ${response.description}` : ''}`;
      }
    }
  }
  return document;
}
