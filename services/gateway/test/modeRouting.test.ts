// Protects the gateway's routing of test accounts to test mode's own replicas (#26, contract §14 "nothing a test key
// sends can … slow live data"): a call naming a test account goes to the test-mode client, any other to the live one,
// and without test-mode replicas everything goes to the live one.
import { describe, expect, it } from 'vitest';
import { routedByMode } from '../src/modeRouting.js';

function fakeClient(label: string) {
  const calls: string[] = [];
  let closed = false;
  return {
    calls,
    closed: () => closed,
    client: {
      createOrder: async (request: { partnerId: string }, options?: { deadlineMs?: number }) => (calls.push(`createOrder ${request.partnerId} ${options?.deadlineMs ?? '-'}`), label),
      listOrders: async (request: { partnerId?: string }) => (calls.push(`listOrders ${request.partnerId ?? ''}`), label),
      ready: async () => undefined,
      close: () => void (closed = true),
    },
  };
}

describe('routedByMode', () => {
  it('when a call names a test account, then the test-mode replicas answer it; a live account or none, the live ones', async () => {
    const live = fakeClient('live');
    const test = fakeClient('test');
    const routed = routedByMode(live.client, test.client);
    expect(await routed.createOrder({ partnerId: 'ptn_01jd0000000000000000000000_test' }, { deadlineMs: 900 })).toBe('test');
    expect(await routed.createOrder({ partnerId: 'ptn_01jd0000000000000000000000' })).toBe('live');
    // An operator's list names no account.
    expect(await routed.listOrders({})).toBe('live');
    expect(await routed.listOrders({ partnerId: '' })).toBe('live');
    expect(test.calls).toEqual(['createOrder ptn_01jd0000000000000000000000_test 900']);
    expect(live.calls).toEqual(['createOrder ptn_01jd0000000000000000000000 -', 'listOrders ', 'listOrders ']);
    routed.close();
    expect([live.closed(), test.closed()]).toEqual([true, true]);
  });

  it('when no test-mode replicas are configured, then the live client serves both modes', async () => {
    const live = fakeClient('live');
    const routed = routedByMode(live.client, undefined);
    expect(routed).toBe(live.client);
    expect(await routed.createOrder({ partnerId: 'ptn_01jd0000000000000000000000_test' })).toBe('live');
  });
});
