// Test mode from the SDK (§14), against a local HTTP server playing the platform: a sk_test_ key is sent unchanged, the helpers call their routes
// with their bodies and answer the eSIM, a live key's TEST_MODE_ONLY is a typed error, and a non-idempotent helper is never sent twice.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, EsimApiError } from '../src/index.js';

type Handler = (request: { method: string; url: string; body: any; authorization: string | undefined }) => { status: number; body?: unknown; headers?: Record<string, string> };

let server: Server;
let baseUrl: string;
let handler: Handler;
const seen: Array<{ method: string; url: string; body: any; authorization: string | undefined }> = [];

async function readBody(request: IncomingMessage): Promise<any> {
  const text = Buffer.concat(await request.toArray()).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const call = { method: request.method!, url: request.url!, body: await readBody(request), authorization: request.headers.authorization };
    seen.push(call);
    const answer = handler(call);
    const problem = answer.status >= 400;
    response.writeHead(answer.status, { 'content-type': problem ? 'application/problem+json' : 'application/json', ...answer.headers });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
afterEach(() => {
  seen.length = 0;
});

const testKey = 'sk_test_abcdefghijkl_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const iccid = '8988247000100000001';
const esim = (status: string, dataUsedMb = 0) => ({
  iccid,
  orderId: 'ord_1',
  status,
  livemode: false,
  suspended: false,
  usage: { dataUsedMb, dataTotalMb: 1024, dataRemainingMb: 1024 - dataUsedMb, updatedAt: '2026-11-26T20:00:00.000Z' },
  bundles: [],
});
const problem = (status: number, code: string, headers: Record<string, string> = {}) => ({
  status,
  headers,
  body: { type: `/problems/${code.toLowerCase().replaceAll('_', '-')}`, title: code, status, code, detail: `${code} detail`, requestId: 'req_1' },
});
const client = (apiKey = testKey) => createClient({ baseUrl, apiKey, retry: { baseDelayMs: 1, maxDelayMs: 5 } });

describe('a test key', () => {
  it('when the client is made with a sk_test_ key, then every call carries that key unchanged and the client says it is not live', async () => {
    handler = () => ({ status: 200, body: { balance: 0, currency: 'USD', livemode: false } });
    const test = client();
    const wallet = await test.wallet.get();
    expect(seen).toEqual([{ method: 'GET', url: '/api/v1/partner/wallet', body: undefined, authorization: `Bearer ${testKey}` }]);
    expect(wallet).toMatchObject({ balance: 0, livemode: false });
    expect(test.livemode).toBe(false);
    expect(client('sk_live_abcdefghijkl_x').livemode).toBe(true);
  });
});

describe('testHelpers', () => {
  it('when the test wallet is credited, then the amount is posted to the test credit route and the topup entry comes back', async () => {
    const entry = { id: 'led_1', type: 'topup', amount: 50_000, balanceAfter: 50_000, livemode: false };
    handler = () => ({ status: 201, body: entry });
    expect(await client().testHelpers.creditWallet(50_000)).toEqual(entry);
    expect(seen).toEqual([{ method: 'POST', url: '/api/v1/partner/test/wallet/credit', body: { amount: 50_000 }, authorization: `Bearer ${testKey}` }]);
  });

  it('when each eSIM helper is called, then it posts to its own route (usage with addMb) and answers the eSIM view the platform returned', async () => {
    const states: Record<string, ReturnType<typeof esim>> = { install: esim('installed'), usage: esim('installed', 300), expire: esim('installed', 300), delete: esim('deleted', 300) };
    handler = ({ url }) => ({ status: 200, body: states[url.split('/').at(-1)!] });
    const helpers = client().testHelpers;
    expect(await helpers.install(iccid)).toMatchObject({ status: 'installed', livemode: false });
    expect((await helpers.addUsage(iccid, 300)).usage.dataUsedMb).toBe(300);
    expect(await helpers.expire(iccid)).toMatchObject({ iccid });
    expect((await helpers.delete(iccid)).status).toBe('deleted');
    expect(seen.map(({ method, url, body }) => ({ method, url, body }))).toEqual([
      { method: 'POST', url: `/api/v1/partner/test/esims/${iccid}/install`, body: undefined },
      { method: 'POST', url: `/api/v1/partner/test/esims/${iccid}/usage`, body: { addMb: 300 } },
      { method: 'POST', url: `/api/v1/partner/test/esims/${iccid}/expire`, body: undefined },
      { method: 'POST', url: `/api/v1/partner/test/esims/${iccid}/delete`, body: undefined },
    ]);
  });

  it('when an ICCID holds characters a path cannot, then they are escaped rather than changing the route', async () => {
    handler = () => problem(404, 'ESIM_NOT_FOUND');
    await client().testHelpers.install('89/../wallet').catch(() => undefined);
    expect(seen[0]!.url).toBe('/api/v1/partner/test/esims/89%2F..%2Fwallet/install');
  });

  it('when a live key calls a helper, then TEST_MODE_ONLY is thrown as a typed 403 and not retried', async () => {
    handler = () => problem(403, 'TEST_MODE_ONLY');
    const error = (await client('sk_live_abcdefghijkl_x').testHelpers.install(iccid).catch((e: unknown) => e)) as EsimApiError;
    expect(error).toBeInstanceOf(EsimApiError);
    expect({ status: error.status, code: error.code, requestId: error.requestId }).toEqual({ status: 403, code: 'TEST_MODE_ONLY', requestId: 'req_1' });
    expect(seen).toHaveLength(1);
  });

  it('when a helper is refused with 429, then it is sent again after Retry-After; a 503 (maybe after the work) is not repeated', async () => {
    const answers = [problem(429, 'RATE_LIMITED', { 'retry-after': '0' })];
    handler = () => answers.shift() ?? { status: 200, body: esim('installed', 100) };
    expect((await client().testHelpers.addUsage(iccid, 100)).usage.dataUsedMb).toBe(100);
    expect(seen.map((s) => s.body)).toEqual([{ addMb: 100 }, { addMb: 100 }]);

    seen.length = 0;
    handler = () => problem(503, 'UNAVAILABLE');
    const error = (await client().testHelpers.creditWallet(500).catch((e: unknown) => e)) as EsimApiError;
    expect(error.code).toBe('UNAVAILABLE');
    expect(seen).toHaveLength(1);
  });

  it('when the ordinary calls meet a 503, then they still retry as before (the helpers’ policy is theirs alone)', async () => {
    const answers = [problem(503, 'UNAVAILABLE')];
    handler = () => answers.shift() ?? { status: 200, body: { balance: 0, currency: 'USD' } };
    await client().wallet.get();
    expect(seen).toHaveLength(2);
  });
});
