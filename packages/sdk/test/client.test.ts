// The SDK's own layer, against a fetch that plays the platform: retries (bounded, one clientRequestId), paging, typed problems.
import { describe, expect, it } from 'vitest';
import { createClient, EsimApiError, retryAfterMs } from '../src/index.js';

type Script = (request: Request, body: any) => Response | Promise<Response>;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers } });
const problem = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { type: `/problems/${code.toLowerCase()}`, title: code, status, code, detail: `${code} detail`, requestId: 'req_1' }, headers);

function fake(script: Script) {
  const seen: { method: string; url: string; body: any; auth: string | null }[] = [];
  const fetch = async (request: Request) => {
    const text = request.method === 'GET' ? '' : await request.text();
    const body = text ? JSON.parse(text) : undefined;
    seen.push({ method: request.method, url: request.url, body, auth: request.headers.get('authorization') });
    return script(request, body);
  };
  return { seen, client: createClient({ baseUrl: 'http://platform.test/', apiKey: 'sk_live_x', fetch, retry: { baseDelayMs: 1, maxDelayMs: 5 } }) };
}

const order = { id: 'ord_1', clientRequestId: 'x', planId: 'plan_1', planName: 'P', status: 'processing', price: 500, currency: 'USD', email: 'a@b.co', phoneNumber: '+33612345678', esim: null, failureReason: null, createdAt: 'now', updatedAt: 'now' };
const orderRequest = { planId: 'plan_1', email: 'a@b.co', phoneNumber: '+33612345678' };

describe('orders.create', () => {
  it('when the platform answers 429, 503 and 409 REQUEST_IN_PROGRESS before 201, then every attempt carries the same generated clientRequestId', async () => {
    const answers = [problem(429, 'RATE_LIMITED', { 'retry-after': '0' }), problem(503, 'UNAVAILABLE'), problem(409, 'REQUEST_IN_PROGRESS')];
    const { seen, client } = fake((_r, body) => answers.shift() ?? json(201, { ...order, clientRequestId: body.clientRequestId, walletBalance: 9500 }));
    const created = await client.orders.create(orderRequest);
    expect(seen).toHaveLength(4);
    const ids = new Set(seen.map((s) => s.body.clientRequestId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^sdk-[0-9a-f-]{36}$/);
    expect(seen[0]!.auth).toBe('Bearer sk_live_x');
    expect(seen[0]!.url).toBe('http://platform.test/api/v1/partner/orders');
    expect(created).toMatchObject({ id: 'ord_1', walletBalance: 9500, replayed: false });
  });

  it('when a replay answers 200 with Idempotent-Replayed, then the order says replayed and keeps the caller’s own clientRequestId', async () => {
    const { seen, client } = fake(() => json(200, { ...order, walletBalance: 1 }, { 'idempotent-replayed': 'true' }));
    const created = await client.orders.create({ ...orderRequest, clientRequestId: 'mine-1' });
    expect(seen[0]!.body.clientRequestId).toBe('mine-1');
    expect(created.replayed).toBe(true);
  });

  it('when the platform stays unavailable, then the SDK gives up after maxAttempts with a typed UNAVAILABLE error', async () => {
    const { seen, client } = fake(() => problem(503, 'UNAVAILABLE'));
    const error = await client.orders.create(orderRequest).catch((e: unknown) => e);
    expect(seen).toHaveLength(4);
    expect(error).toBeInstanceOf(EsimApiError);
    expect((error as EsimApiError).code).toBe('UNAVAILABLE');
  });

  it('when the wallet is short, then the error is INSUFFICIENT_BALANCE with its status and request id, and nothing is retried', async () => {
    const { seen, client } = fake(() => problem(402, 'INSUFFICIENT_BALANCE'));
    const error = (await client.orders.create(orderRequest).catch((e: unknown) => e)) as EsimApiError;
    expect(seen).toHaveLength(1);
    expect({ code: error.code, status: error.status, requestId: error.requestId }).toEqual({ code: 'INSUFFICIENT_BALANCE', status: 402, requestId: 'req_1' });
  });

  it('when the connection drops once, then the order is sent again with the same id', async () => {
    let calls = 0;
    const { seen, client } = fake((_r, body) => {
      calls += 1;
      if (calls === 1) throw new TypeError('fetch failed');
      return json(201, { ...order, clientRequestId: body.clientRequestId, walletBalance: 1 });
    });
    await client.orders.create(orderRequest);
    expect(seen).toHaveLength(2);
    expect(seen[0]!.body.clientRequestId).toBe(seen[1]!.body.clientRequestId);
  });
});

describe('paging', () => {
  it('when a list spans three pages, then all() yields every item in order and asks for each page once, keeping the filters', async () => {
    const { seen, client } = fake((request) => {
      const url = new URL(request.url);
      const page = Number(url.searchParams.get('page'));
      const data = page <= 3 ? [{ ...order, id: `ord_${page}a` }, { ...order, id: `ord_${page}b` }] : [];
      return json(200, { data, pagination: { page, limit: 2, total: 6, totalPages: 3 } });
    });
    const ids: string[] = [];
    for await (const o of client.orders.all({ status: 'provisioned', limit: 2 })) ids.push(o.id);
    expect(ids).toEqual(['ord_1a', 'ord_1b', 'ord_2a', 'ord_2b', 'ord_3a', 'ord_3b']);
    expect(seen.map((s) => new URL(s.url).search)).toEqual(['?status=provisioned&limit=2&page=1', '?status=provisioned&limit=2&page=2', '?status=provisioned&limit=2&page=3']);
  });

  it('when a list is empty, then all() yields nothing after one request', async () => {
    const { seen, client } = fake(() => json(200, { data: [], pagination: { page: 1, limit: 50, total: 0, totalPages: 0 } }));
    const plans = [];
    for await (const plan of client.catalog.all({ country: 'FR' })) plans.push(plan);
    expect(plans).toEqual([]);
    expect(seen).toHaveLength(1);
  });
});

it('when Retry-After is seconds or an HTTP date, then it is read as milliseconds to wait', () => {
  expect(retryAfterMs('3')).toBe(3000);
  expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
  expect(retryAfterMs(null)).toBeUndefined();
  expect(retryAfterMs('soon')).toBeUndefined();
});
