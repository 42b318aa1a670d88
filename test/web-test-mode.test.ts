// Protects test mode's calls in the web apps (§14): in test mode every call to a mode's path (reads, the test twins, endpoints) carries livemode=false, the account and test keys do not; live asks exactly as before.
import { describe, expect, it } from 'vitest';
import { clientForMode, modeQuery, partnerOfAccount } from '../web/shared/mode.js';
import { keyVariableOf, modePaths } from '../web/portal/mode.js';

type Query = Record<string, string | number | undefined | null>;

/** A client shaped like web/shared/api.ts's (which is typed for the DOM, so not imported here) that records what it was asked. */
function recorder() {
  const calls: Array<{ method: string; path: string; query?: Query; body?: unknown }> = [];
  const client = {
    get: async <T,>(path: string, query?: Query) => (calls.push({ method: 'GET', path, query }), undefined as T),
    post: async <T,>(path: string, body?: unknown) => (calls.push({ method: 'POST', path, body }), undefined as T),
    patch: async <T,>(path: string, body: unknown) => (calls.push({ method: 'PATCH', path, body }), undefined as T),
    postForStatus: async <T,>(path: string, body?: unknown) => (calls.push({ method: 'POST', path, body }), { status: 201, body: undefined as T }),
    delete: async (path: string) => void calls.push({ method: 'DELETE', path }),
    getText: async (path: string) => (calls.push({ method: 'GET', path }), ''),
  };
  return { calls, client };
}

describe('the portal client of a mode', () => {
  it('when in test mode, then every read view and its sub-resources carry livemode=false beside their own query', async () => {
    const { calls, client } = recorder();
    const test = clientForMode(client, 'test', modePaths);
    await test.get('/partner/me/orders', { status: 'provisioned', page: 2 });
    await test.get('/partner/me/orders/ord_1');
    await test.get('/partner/me/esims/8988200000000000001');
    await test.get('/partner/me/wallet/ledger', { page: 1 });
    await test.get('/partner/me/webhook-deliveries', { endpointId: '' });
    await test.getText('/partner/me/orders/ord_1/esims.csv');
    expect(calls).toEqual([
      { method: 'GET', path: '/partner/me/orders', query: { status: 'provisioned', page: 2, livemode: 'false' } },
      { method: 'GET', path: '/partner/me/orders/ord_1', query: { livemode: 'false' } },
      { method: 'GET', path: '/partner/me/esims/8988200000000000001', query: { livemode: 'false' } },
      { method: 'GET', path: '/partner/me/wallet/ledger', query: { page: 1, livemode: 'false' } },
      { method: 'GET', path: '/partner/me/webhook-deliveries', query: { endpointId: '', livemode: 'false' } },
      { method: 'GET', path: '/partner/me/orders/ord_1/esims.csv?livemode=false' },
    ]);
  });

  it('when in test mode, then the test twins, the test event and endpoint changes carry livemode=false too, so a pending account passes the portal door', async () => {
    const { calls, client } = recorder();
    const test = clientForMode(client, 'test', modePaths);
    await test.post('/partner/me/test/wallet/credit', { amount: 500 });
    await test.post('/partner/me/test/esims/8988200000000000001/usage', { addMb: 100 });
    await test.post('/partner/me/webhook/test');
    await test.post('/partner/me/webhook-endpoints', { url: 'https://example.com/h', livemode: false });
    await test.patch('/partner/me/webhook-endpoints/whe_1', { enabled: false });
    await test.delete('/partner/me/webhook-endpoints/whe_1');
    expect(calls).toEqual([
      { method: 'POST', path: '/partner/me/test/wallet/credit?livemode=false', body: { amount: 500 } },
      { method: 'POST', path: '/partner/me/test/esims/8988200000000000001/usage?livemode=false', body: { addMb: 100 } },
      { method: 'POST', path: '/partner/me/webhook/test?livemode=false', body: undefined },
      { method: 'POST', path: '/partner/me/webhook-endpoints?livemode=false', body: { url: 'https://example.com/h', livemode: false } },
      { method: 'PATCH', path: '/partner/me/webhook-endpoints/whe_1?livemode=false', body: { enabled: false } },
      { method: 'DELETE', path: '/partner/me/webhook-endpoints/whe_1?livemode=false' },
    ]);
  });

  it('when in test mode, then the account itself, the test keys, the test secret, the wipe and paths that only look alike are sent unchanged', async () => {
    const { calls, client } = recorder();
    const test = clientForMode(client, 'test', modePaths);
    await test.get('/partner/me');
    await test.get('/partner/me/ordersx');
    await test.patch('/partner/me', { testWebhookUrl: null });
    await test.post('/partner/me/test-keys');
    await test.post('/partner/me/test-keys/key_1/revoke');
    await test.post('/partner/me/test-webhook-secret');
    await test.post('/partner/me/test-data/delete');
    expect(calls.map((c) => `${c.method} ${c.path}${c.query ? ` ${JSON.stringify(c.query)}` : ''}`)).toEqual([
      'GET /partner/me',
      'GET /partner/me/ordersx',
      'PATCH /partner/me',
      'POST /partner/me/test-keys',
      'POST /partner/me/test-keys/key_1/revoke',
      'POST /partner/me/test-webhook-secret',
      'POST /partner/me/test-data/delete',
    ]);
  });

  it('when live, then the client is the one given: reads ask as they always did', async () => {
    const { calls, client } = recorder();
    expect(clientForMode(client, 'live', modePaths)).toBe(client);
    await clientForMode(client, 'live', modePaths).get('/partner/me/orders', { page: 1 });
    expect(calls).toEqual([{ method: 'GET', path: '/partner/me/orders', query: { page: 1 } }]);
    expect(modeQuery('live')).toEqual({});
    expect(modeQuery('test')).toEqual({ livemode: 'false' });
  });
});

it('when a copied call is shown in test mode, then it names the test key variable, and the live one otherwise', () => {
  expect([keyVariableOf('test'), keyVariableOf('live')]).toEqual(['ESIM_TEST_KEY', 'ESIM_API_KEY']);
});

it('when a row belongs to a test account, then its partner link names the partner itself', () => {
  expect(partnerOfAccount('ptn_abc123_test')).toBe('ptn_abc123');
  expect(partnerOfAccount('ptn_abc123')).toBe('ptn_abc123');
});
