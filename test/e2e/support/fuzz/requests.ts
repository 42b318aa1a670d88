/**
 * Fuzz requests for every operation of both OpenAPI documents: parameters,
 * query, body and its encoding, and the credentials, each drawn from the
 * schemas and then broken (see schemaArbitrary.ts).
 */
import fc from 'fast-check';
import { anyJson, mutated, valid, type Components, type Schema } from './schemaArbitrary.js';

export type Listener = 'public' | 'admin';

export interface Operation {
  listener: Listener;
  method: string;
  /** The document's path, `/api/v1/partner/orders/{orderId}`. */
  path: string;
  documented: Set<number>;
  pathParams: string[];
  query: Array<{ name: string; schema: Schema }>;
  body: Schema | undefined;
  bodyRequired: boolean;
}

export interface FuzzRequest {
  listener: Listener;
  /** The operation it was drawn for, `POST /api/v1/partner/orders`. */
  operation: string;
  credential: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Credentials by name, per listener; `none` sends nothing. */
export type Credentials = Record<string, Record<string, string>>;

/** Ids that exist (or name another partner's resource), so some requests go past validation to the services. */
export interface IdPools {
  /** Path parameter name → known values; `*` for any name. */
  public: Record<string, string[]>;
  admin: Record<string, string[]>;
  /** Body field name → known values (a real planId makes an order that debits the wallet). */
  fields: Record<string, string[]>;
}

const methods = ['get', 'put', 'post', 'patch', 'delete'];

export function operationsOf(listener: Listener, document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(item).filter(([m]) => methods.includes(m))) {
      const parameters = (op.parameters ?? []) as Array<{ in: string; name: string; schema: Schema }>;
      operations.push({
        listener,
        method: method.toUpperCase(),
        path,
        documented: new Set(Object.keys(op.responses ?? {}).map(Number)),
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
        body: op.requestBody?.content?.['application/json']?.schema,
        bodyRequired: Boolean(op.requestBody?.required),
      });
    }
  }
  return operations;
}

const brokenEncoding = '%E0%A4%A';
const idBody = fc.stringMatching(/^[0-9a-z]{26}$/);

function pathParam(pool: string[]): fc.Arbitrary<string> {
  const encoded = (raw: string) => {
    try {
      return encodeURIComponent(raw);
    } catch {
      return 'lone-surrogate';
    }
  };
  return fc.oneof(
    { arbitrary: pool.length > 0 ? fc.constantFrom(...pool).map(encoded) : fc.constant('ord_01jzzzzzzzzzzzzzzzzzzzzzzz'), weight: 5 },
    { arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(encoded), weight: 2 },
    { arbitrary: fc.tuple(fc.constantFrom('ord_', 'ptn_', 'plan_', 'key_', 'dlv_'), idBody).map(([prefix, body]) => prefix + body), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }).map(encoded), weight: 1 },
    { arbitrary: fc.constantFrom(brokenEncoding, 'a'.repeat(1_100), '%00', '..', '%2F..%2F', "1'%20OR%20'1'='1", '-1', '0'), weight: 2 },
  );
}

const junkQuery = fc.constantFrom('0', '101', 'abc', '1.5', '-1', '', '99999999999', '1e3', 'x'.repeat(300), '%ZZ', 'true', '[object Object]');

function queryValue(schema: Schema, components: Components): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    { arbitrary: valid(schema, components).map((v) => String(v)), weight: 3 },
    { arbitrary: junkQuery, weight: 2 },
  );
}

type Encoding = 'json' | 'malformed' | 'text/plain' | 'no type' | 'oversize' | 'none';

function encode(value: unknown, encoding: Encoding): { headers: Record<string, string>; body?: string } {
  const text = JSON.stringify(value) ?? 'null';
  switch (encoding) {
    case 'none':
      return { headers: {} };
    case 'json':
      return { headers: { 'content-type': 'application/json' }, body: text };
    case 'malformed':
      return { headers: { 'content-type': 'application/json; charset=utf-8' }, body: text.slice(0, Math.max(1, text.length - 1)) + '{' };
    case 'text/plain':
      return { headers: { 'content-type': 'text/plain' }, body: text };
    case 'no type':
      return { headers: {}, body: text };
    case 'oversize':
      return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ padding: 'x'.repeat(17 * 1024), value }) };
  }
}

/** Requests for `op`, each with one of the credentials `credential` draws (by name). */
export function requestFor(op: Operation, credential: fc.Arbitrary<string>, credentials: Credentials, pools: IdPools, components: Components): fc.Arbitrary<FuzzRequest> {
  const pool = pools[op.listener];
  const params = fc.tuple(...op.pathParams.map((name) => pathParam([...(pool[name] ?? []), ...(pool['*'] ?? [])])));
  const query = fc.tuple(...op.query.map((q) => queryValue(q.schema, components)), fc.option(fc.constantFrom('extra=1', 'page=1&page=2', 'limit=', '__proto__=x'), { freq: 8 }));
  const bodyValue = op.body ? fc.oneof({ arbitrary: valid(op.body, components), weight: 3 }, { arbitrary: mutated(op.body, components), weight: 3 }) : anyJson;
  const encodings: fc.Arbitrary<Encoding> =
    op.method === 'GET'
      ? fc.constant('none')
      : fc.oneof(
          { arbitrary: fc.constant<Encoding>('json'), weight: 10 },
          { arbitrary: fc.constantFrom<Encoding>('malformed', 'text/plain', 'no type', 'oversize'), weight: 3 },
          { arbitrary: fc.constant<Encoding>('none'), weight: op.bodyRequired ? 1 : 3 },
        );
  const known = fc.tuple(fc.boolean(), fc.nat());
  return fc.tuple(params, query, bodyValue, encodings, known, credential).map(([values, queryValues, drawn, encoding, [useKnown, pick], credentialName]) => {
    const body = useKnown ? withKnownFields(drawn, pools.fields, pick) : drawn;
    let path = op.path;
    op.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, values[i]!)));
    const pairs = op.query.flatMap((q, i) => (queryValues[i] === undefined ? [] : [`${q.name}=${encodeURIComponent(queryValues[i] as string)}`]));
    const extra = queryValues[op.query.length];
    if (extra) pairs.push(extra as string);
    const encoded = encode(body, encoding);
    return {
      listener: op.listener,
      operation: `${op.method} ${op.path}`,
      credential: credentialName,
      method: op.method,
      path: pairs.length > 0 ? `${path}?${pairs.join('&')}` : path,
      headers: { ...encoded.headers, ...(credentials[op.listener]?.[credentialName] === undefined ? {} : headerFor(credentialName, credentials[op.listener]![credentialName]!)) },
      ...(encoded.body === undefined ? {} : { body: encoded.body }),
    };
  });
}

function headerFor(credential: string, value: string): Record<string, string> {
  return credential === 'apiKeyHeader' ? { 'x-api-key': value } : { authorization: value };
}

/** Replaces fields the pools know (planId…) by real values, so a valid body reaches the money path. */
function withKnownFields(body: unknown, fields: Record<string, string[]>, pick: number): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [name, values] of Object.entries(fields)) if (name in copy && values.length > 0) copy[name] = values[pick % values.length];
  return copy;
}
