import { STATUS_CODES } from 'node:http';
import { problemType } from '@esim/errors';
import { codeSamples, samplesMarkdown } from './codeSamples.js';
import { codesOf, exampleFor, problemExample } from './examples.js';
import { operationIdFor } from './operationIds.js';

/**
 * What turns fastify-swagger's output into a document a generator can trust
 * (#19), applied to every route and to the whole document, so that a route
 * added later is covered without touching this file: an operationId, an
 * explicit `security: []` on public operations, examples, `servers`, a
 * license, no unused component, problem responses that link the error table.
 */

type Doc = Record<string, any>;
type RouteTransform = (input: any) => { schema: any; url: string };

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Per route: its operationId and, when it declares no security, `security: []` (it is public). */
export function completeRoutes(inner: RouteTransform): RouteTransform {
  return (input) => {
    const out = inner(input);
    if (out.schema?.hide) return out;
    const method = [input.route?.method ?? 'GET'].flat().find((m: string) => m !== 'HEAD') ?? 'GET';
    const path = out.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    out.schema = { ...out.schema, operationId: out.schema.operationId ?? operationIdFor(method, path), security: out.schema.security ?? [] };
    return out;
  };
}

export interface DocumentOptions {
  listener: 'public' | 'admin';
  /** Where the error table is served: each problem response links its codes there. */
  problemsPage: string;
}

/** On the whole document, once the routes are in. */
export function completeDocument(doc: Doc, { listener, problemsPage }: DocumentOptions): Doc {
  doc.servers ??= [{ url: '/', description: 'The listener that serves this document' }];
  doc.info = { ...doc.info, license: { name: 'Proprietary', url: 'https://reseller.example/terms' } };
  for (const [path, item] of Object.entries<Doc>(doc.paths ?? {})) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation) continue;
      completeOperation(doc, operation, problemsPage);
      if (operation['x-codeSamples'] === undefined) {
        const samples = codeSamples(listener, method, path, operation);
        operation['x-codeSamples'] = samples;
        operation.description = [operation.description, samplesMarkdown(samples)].filter(Boolean).join('\n\n');
      }
    }
  }
  pruneUnusedComponents(doc);
  return doc;
}

function completeOperation(doc: Doc, operation: Doc, problemsPage: string): void {
  const said = `${operation.summary ?? ''} ${operation.description ?? ''}`;
  for (const media of Object.values<Doc>(operation.requestBody?.content ?? {})) {
    media.example ??= exampleFor(doc, media.schema ?? {});
  }
  for (const [status, response] of Object.entries<Doc>(operation.responses ?? {})) {
    const code = Number(status);
    const isProblem = Object.values<Doc>(response.content ?? {}).some((m) => m.schema?.$ref === '#/components/schemas/Problem');
    if (isProblem) {
      const codes = codesOf(code);
      const links = codes.map((c) => `[${c}](${problemsPage}#${problemType(c).split('/').at(-1)})`).join(', ');
      if (response.description === 'Default Response' || response.description === undefined) {
        response.description = `${STATUS_CODES[code] ?? 'Error'}: ${links || `see the [error codes](${problemsPage})`}`;
      }
      const example = problemExample(code, said);
      for (const media of Object.values<Doc>(response.content ?? {})) if (example) media.example ??= example;
      continue;
    }
    if (response.description === 'Default Response') response.description = STATUS_CODES[code] ?? 'Response';
    for (const media of Object.values<Doc>(response.content ?? {})) media.example ??= exampleFor(doc, media.schema ?? {});
  }
}

/** Components no operation reaches (zod's input twins of output-only schemas, an admin-only view): dropped. */
function pruneUnusedComponents(doc: Doc): void {
  const schemas: Doc = doc.components?.schemas ?? {};
  const reached = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')) {
        const name = child.slice('#/components/schemas/'.length);
        if (!reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        }
      } else visit(child);
    }
  };
  visit(doc.paths);
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
}
