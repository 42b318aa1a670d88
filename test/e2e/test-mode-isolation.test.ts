// Protects §14's promise that the two modes never meet. Every partner route the gateway documents, called with one mode's credential and the other mode's ids, answers exactly as it answers an id nobody owns; every list read in one mode names none of the other mode's objects; and after the walk the other mode's money and eSIMs are as they were.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, asKey, call, platform, portalToken, withToken, type Answer } from './support/client.js';
import { buy, planFor } from './support/esims.js';
import { fundedPartner } from './support/money.js';

interface Mode {
  name: 'live' | 'test';
  key: string;
  orderId: string;
  iccid: string;
  ledgerIds: string[];
  balance: number;
}

interface Operation {
  method: string;
  path: string;
  portal: boolean;
}

let token: string;
let live: Mode;
let test: Mode;
let operations: Operation[];

/** An id of the right shape that nobody owns: the answer every other mode's id must get. */
const unknownIds = { orderId: `ord_${'0'.repeat(10)}${randomBytes(8).toString('hex')}`, iccid: `89${randomBytes(8).readBigUInt64BE().toString().padStart(20, '0').slice(0, 17)}` };

const bodies: Record<string, unknown> = {
  usage: { addMb: 1 },
  credit: { amount: 100 },
};

function bodyFor(operation: Operation, ids: { iccid: string; planId: string }): unknown {
  if (operation.method === 'GET' || operation.method === 'DELETE') return undefined;
  if (operation.path.endsWith('/usage')) return bodies.usage;
  if (operation.path.endsWith('/credit')) return bodies.credit;
  // Orders and quotes: a top-up of the other mode's eSIM, the one body here that names an id.
  if (/\/orders(\/quote)?$/.test(operation.path)) return { planId: ids.planId, iccid: ids.iccid, clientRequestId: `iso-${randomBytes(6).toString('hex')}`, email: 'traveller@example.com', phoneNumber: '+447700900123' };
  return {};
}

function concrete(path: string, ids: { orderId: string; iccid: string }): string {
  return path
    .replace('/api/v1', '')
    .replace(/\{(orderId|id)\}/g, ids.orderId)
    .replace(/\{iccid\}/g, ids.iccid);
}

/** Calls `operation` as `mode` (its key, or the portal token with `livemode=false` in test mode) naming `ids`. */
async function callAs(mode: Mode, operation: Operation, ids: { orderId: string; iccid: string; planId: string }): Promise<Answer> {
  // Under every limit a walk could meet (a portal's 20 a second, a test key's 25): a 429 here would hide the answer compared.
  await new Promise((r) => setTimeout(r, 70));
  const path = concrete(operation.path, ids);
  const body = bodyFor(operation, ids);
  if (operation.portal) {
    const query = mode.name === 'test' && !path.includes('/me/test/') ? `${path.includes('?') ? '&' : '?'}livemode=false` : '';
    return api(`${path}${query}`, { method: operation.method, ...(body === undefined ? {} : { body }), ...withToken(token) });
  }
  return asKey(mode.key, path, { method: operation.method, ...(body === undefined ? {} : { body }) });
}

/** Status and problem code: what "answers as an unknown id does" compares. */
const outcome = (answer: Answer) => ({ status: answer.status, code: answer.body?.code ?? null });

let planId: string;

beforeAll(async () => {
  planId = await planFor(['FR'], 1000, 500);
  const partner = await fundedPartner(100_000);
  token = await portalToken(partner.email, partner.password);
  const created = await api('/partner/me/test-keys', { method: 'POST', body: {}, ...withToken(token) });
  expect(created.status, created.text).toBe(201);
  const testKey = created.body.key as string;
  expect(testKey).toMatch(/^sk_test_[a-z0-9]{12}_[A-Za-z0-9]{32,}$/);
  const credited = await asKey(testKey, '/partner/test/wallet/credit', { body: { amount: 50_000 } });
  expect(credited.status, credited.text).toBe(201);

  const modeOf = async (name: Mode['name'], key: string): Promise<Mode> => {
    const order = await buy(key, planId);
    expect(order.status, JSON.stringify(order)).toBe('provisioned');
    const wallet = (await asKey(key, '/partner/wallet')).body;
    return { name, key, orderId: order.id, iccid: order.iccid, ledgerIds: wallet.ledger.map((entry: { id: string }) => entry.id), balance: wallet.balance };
  };
  [live, test] = await Promise.all([modeOf('live', partner.apiKey), modeOf('test', testKey)]);

  const { body: openapi } = await call(platform.publicUrl, '/openapi.json');
  operations = [];
  for (const [path, item] of Object.entries<Record<string, { security?: Array<Record<string, unknown>> }>>(openapi.paths)) {
    if (!path.startsWith('/api/v1/partner/')) continue;
    for (const [method, operation] of Object.entries(item)) {
      const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
      const portal = schemes.includes('portalToken');
      if (!portal && !schemes.some((s) => s.startsWith('apiKey'))) continue;
      operations.push({ method: method.toUpperCase(), path, portal });
    }
  }
}, 180_000);

describe('test mode: the two datasets never meet', () => {
  it('when the partner API is walked, then it has the routes test mode adds', () => {
    const paths = operations.map((o) => `${o.method} ${o.path}`);
    expect(paths).toContain('POST /api/v1/partner/test/wallet/credit');
    expect(paths).toContain('POST /api/v1/partner/test/esims/{iccid}/install');
    expect(paths).toContain('GET /api/v1/partner/orders/{orderId}');
  });

  it('when every route that takes an id is called with the other mode’s id, then it answers as for an id nobody owns', async () => {
    const checked: string[] = [];
    for (const operation of operations) {
      const named = /\{(orderId|id|iccid)\}/.test(operation.path) || /\/orders(\/quote)?$/.test(operation.path);
      if (!named || (operation.method === 'GET' && !/\{/.test(operation.path))) continue;
      // Endpoint ids (whe_…) are the partner's in both modes and are walked by the webhook suites.
      if (operation.path.includes('webhook-endpoints')) continue;
      // The portal's test-helper twins act on the test account whoever calls; their API-key originals are walked.
      if (operation.path.includes('/me/test/')) continue;
      for (const [caller, other] of [
        [live, test],
        [test, live],
      ] as const) {
        const crossed = await callAs(caller, operation, { orderId: other.orderId, iccid: other.iccid, planId });
        const unknown = await callAs(caller, operation, { ...unknownIds, planId });
        expect(outcome(crossed), `${operation.method} ${operation.path} as ${caller.name} with ${other.name} ids: ${crossed.text}`).toEqual(outcome(unknown));
        expect(crossed.status, `${operation.method} ${operation.path} as ${caller.name}`).not.toBe(200);
        expect(crossed.status).not.toBe(201);
        checked.push(`${operation.method} ${operation.path} as ${caller.name}`);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(16);
  }, 300_000);

  it('when every list is read in one mode, then it names none of the other mode’s orders, eSIMs or ledger entries', async () => {
    let lists = 0;
    for (const operation of operations.filter((o) => o.method === 'GET' && !/\{/.test(o.path))) {
      for (const [caller, other] of [
        [live, test],
        [test, live],
      ] as const) {
        const answer = await callAs(caller, operation, { orderId: caller.orderId, iccid: caller.iccid, planId });
        if (answer.status !== 200) continue;
        lists += 1;
        for (const foreign of [other.orderId, other.iccid, ...other.ledgerIds]) {
          expect(answer.text.includes(foreign), `${operation.path} as ${caller.name} shows ${foreign}`).toBe(false);
        }
        if (/\/(orders|esims|wallet)(\?|$)/.test(operation.path)) expect(answer.text, `${operation.path} as ${caller.name}`).toMatch(/"livemode":(true|false)/);
        // The account itself (GET /partner/me) lists the keys of both modes; every other list is one mode's.
        if (answer.text.includes('"livemode"') && !operation.path.endsWith('/partner/me')) expect(answer.text.includes(`"livemode":${caller.name === 'test' ? 'true' : 'false'}`), `${operation.path} as ${caller.name}`).toBe(false);
      }
    }
    expect(lists).toBeGreaterThanOrEqual(8);
  }, 120_000);

  it('when the walk is over, then each mode’s wallet, order and eSIM are as they were', async () => {
    for (const mode of [live, test]) {
      const wallet = (await asKey(mode.key, '/partner/wallet')).body;
      expect(wallet.balance, mode.name).toBe(mode.balance);
      expect(wallet.livemode).toBe(mode.name === 'live');
      const order = await asKey(mode.key, `/partner/orders/${mode.orderId}`);
      expect(order.body).toMatchObject({ status: 'provisioned', livemode: mode.name === 'live' });
      const esim = await asKey(mode.key, `/partner/esims/${mode.iccid}`);
      expect(esim.body.status, mode.name).not.toBe('suspended');
      expect(esim.body.livemode).toBe(mode.name === 'live');
    }
  });

  it('when the same clientRequestId is used in both modes, then each mode has its own order', async () => {
    const clientRequestId = `same-${randomBytes(6).toString('hex')}`;
    const body = { planId, clientRequestId, email: 'traveller@example.com', phoneNumber: '+447700900123' };
    const [inLive, inTest] = [await asKey(live.key, '/partner/orders', { body }), await asKey(test.key, '/partner/orders', { body })];
    expect(inLive.status, inLive.text).toBe(201);
    expect(inTest.status, inTest.text).toBe(201);
    expect(inLive.body.id).not.toBe(inTest.body.id);
    expect([inLive.body.livemode, inTest.body.livemode]).toEqual([true, false]);
  });
});
