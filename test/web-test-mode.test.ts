// Protects test mode's reads in the web apps (§14): in test mode each read view asks with livemode=false and nothing else changes; live asks exactly as before.
import { describe, expect, it } from 'vitest';
import { clientForMode, modeQuery, partnerOfAccount } from '../web/shared/mode.js';
import { keyVariableOf, modeReadPaths } from '../web/portal/mode.js';

type Query = Record<string, string | number | undefined | null>;

/** A client shaped like web/shared/api.ts's (which is typed for the DOM, so not imported here) that records what it was asked. */
function recorder() {
  const calls: Array<{ method: string; path: string; query?: Query; body?: unknown }> = [];
  const client = {
    get: async <T,>(path: string, query?: Query) => (calls.push({ method: 'GET', path, query }), undefined as T),
    post: async (path: string, body?: unknown) => void calls.push({ method: 'POST', path, body }),
    patch: async (path: string, body: unknown) => void calls.push({ method: 'PATCH', path, body }),
    getText: async (path: string) => (calls.push({ method: 'GET', path }), ''),
  };
  return { calls, client };
}

describe('the portal client of a mode', () => {
  it('when in test mode, then every read view and its sub-resources carry livemode=false beside their own query', async () => {
    const { calls, client } = recorder();
    const test = clientForMode(client, 'test', modeReadPaths);
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

  it('when in test mode, then the account itself, writes and paths that only look alike are sent unchanged', async () => {
    const { calls, client } = recorder();
    const test = clientForMode(client, 'test', modeReadPaths);
    await test.get('/partner/me');
    await test.get('/partner/me/ordersx');
    await test.post('/partner/me/test/wallet/credit', { amount: 500 });
    await test.patch('/partner/me', { testWebhookUrl: null });
    expect(calls).toEqual([
      { method: 'GET', path: '/partner/me', query: undefined },
      { method: 'GET', path: '/partner/me/ordersx', query: undefined },
      { method: 'POST', path: '/partner/me/test/wallet/credit', body: { amount: 500 } },
      { method: 'PATCH', path: '/partner/me', body: { testWebhookUrl: null } },
    ]);
  });

  it('when live, then the client is the one given: reads ask as they always did', async () => {
    const { calls, client } = recorder();
    expect(clientForMode(client, 'live', modeReadPaths)).toBe(client);
    await clientForMode(client, 'live', modeReadPaths).get('/partner/me/orders', { page: 1 });
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
