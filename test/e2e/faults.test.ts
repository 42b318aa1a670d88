// #23, contract §11: money whole under pauses, not only crashes. A process paused (SIGSTOP) in the middle of a revoke
// or a debit and resumed past every deadline: afterwards every order is final, debited once, refunded once if it was
// cancelled, each balance is its ledger's sum, and the reconciliation finds nothing. What a client saw in each case is
// the fault table of docs/deployment.md.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { admin, api, control, until, withKey, type Answer } from './support/client.js';
import { buy, ledgerOf, planFor } from './support/esims.js';
import { db, fundedPartner, ledgerViolations, orderBody, placeOrderPatiently } from './support/money.js';

const pool = db();
afterAll(() => pool.end());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const paused = new Set<string>();
async function pause(service: string) {
  expect((await control(`/services/${service}/signal?signal=SIGSTOP`, 'POST')).status).toBe(200);
  paused.add(service);
}
async function resume(service: string) {
  expect((await control(`/services/${service}/signal?signal=SIGCONT`, 'POST')).status).toBe(200);
  paused.delete(service);
}
// A failed assertion must never leave a process of the shared platform stopped.
afterEach(async () => {
  for (const service of [...paused]) await resume(service);
});

const partners: string[] = [];

describe('faults: processes paused past every deadline', () => {
  it('when the supplier is paused in the middle of a revoke, then the partner hears 503 and the cancellation completes by itself, refunded exactly once', async () => {
    const partner = await fundedPartner(10_000);
    partners.push(partner.id);
    const planId = await planFor(['FR'], 1024);
    const order = await buy(partner.apiKey, planId);
    expect(order.status).toBe('provisioned');

    await pause('supplier-sim');
    let answer: Answer;
    try {
      answer = await api(`/partner/orders/${order.id}/cancel`, { method: 'POST', ...withKey(partner.apiKey) });
    } finally {
      // Resumed after provisioning gave up on it: the simulator now reads the revoke and carries it out, late.
      await resume('supplier-sim');
    }
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('UNAVAILABLE');

    // Nobody retries: the cancel sweeper asks again (idempotent upstream) and records the refund.
    const cancelled = await until(
      async () => {
        const now = await api(`/partner/orders/${order.id}`, withKey(partner.apiKey));
        return now.body.status === 'cancelled' ? now.body : undefined;
      },
      'the cancellation to complete by itself',
      120_000,
      500,
    );
    expect(cancelled.status).toBe('cancelled');
    expect(await ledgerOf(partner.apiKey, order.id)).toEqual({ debits: 1, refunds: 1, refunded: order.price });
    // The partner's retry now answers the cancellation, refunding nothing more.
    const again = await api(`/partner/orders/${order.id}/cancel`, { method: 'POST', ...withKey(partner.apiKey) });
    expect(again.status).toBe(200);
    expect(await ledgerOf(partner.apiKey, order.id)).toEqual({ debits: 1, refunds: 1, refunded: order.price });
    expect((await api('/partner/wallet', withKey(partner.apiKey))).body.balance).toBe(10_000);
  }, 240_000);

  it('when the wallet is paused in the middle of a debit past every deadline, then the partner retrying the same request gets one order, debited once', async () => {
    const partner = await fundedPartner(10_000);
    partners.push(partner.id);
    const planId = await planFor(['FR'], 1024);
    const body = orderBody(planId);

    await pause('wallet');
    let first: Answer;
    try {
      first = await api('/partner/orders', { body, ...withKey(partner.apiKey) });
      // Past the Reserve deadline (5 s) and the pending sweeper's floor (10 s): resumed, the wallet finds its work late.
      await sleep(12_000);
    } finally {
      await resume('wallet');
    }
    expect(first.status).toBe(503);

    const placed = await placeOrderPatiently(partner.apiKey, body, 120_000);
    expect([200, 201]).toContain(placed.status);
    const orderId = placed.body.id as string;
    const final = await until(
      async () => {
        const now = await api(`/partner/orders/${orderId}`, withKey(partner.apiKey));
        return now.body.status === 'processing' ? undefined : now.body;
      },
      'the order to settle',
      60_000,
      250,
    );
    expect(final.status).toBe('provisioned');
    const listed = await admin(`/orders?partnerId=${partner.id}&limit=100&page=1`);
    expect(listed.body.data.map((o: { id: string }) => o.id)).toEqual([orderId]);
    expect(await ledgerOf(partner.apiKey, orderId)).toEqual({ debits: 1, refunds: 0, refunded: 0 });
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM wallet.ledger_entries WHERE partner_id = $1 AND type = 'order_debit'`, [partner.id]);
    expect(rows[0]!.n).toBe('1');
  }, 240_000);

  it('afterwards, every balance is its ledger\'s sum and the reconciliation finds nothing of these partners', async () => {
    for (const partnerId of partners) expect(await ledgerViolations(pool, partnerId)).toEqual([]);
    const run = await admin('/reconciliation/run', { method: 'POST' });
    expect(run.status).toBe(200);
    expect(run.body.findings.filter((finding: { partnerId: string | null }) => finding.partnerId !== null && partners.includes(finding.partnerId))).toEqual([]);
    const listed = await admin('/reconciliation');
    expect(listed.status).toBe(200);
    expect(listed.body.data[0].id).toBe(run.body.id);
  }, 180_000);
});
