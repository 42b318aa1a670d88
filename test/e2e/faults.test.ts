// #23, contract §11: money whole under pauses, not only crashes. A process paused (SIGSTOP) in the middle of a revoke,
// a debit, a delivery or a relay, and resumed past every deadline: afterwards every order is final, debited once, refunded once if it was
// cancelled, each balance is its ledger's sum, and the reconciliation finds nothing. What a client saw in each case is
// the fault table of docs/deployment.md.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, control, portalToken, until, withKey, withToken, type Answer } from './support/client.js';
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

// A partner's webhook receiver that can hold its answer to one request: the moment "mid-delivery".
const received: Array<{ id: string; type: string; orderId: string | undefined }> = [];
let holdNext: { arrived: () => void; answer: Promise<void> } | undefined;
let receiver: Server;
beforeAll(async () => {
  receiver = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const event = JSON.parse(raw);
      received.push({ id: event.id, type: event.type, orderId: event.data?.order?.id ?? event.data?.orderId });
      const held = holdNext;
      holdNext = undefined;
      if (!held) return void response.writeHead(204).end();
      held.arrived();
      void held.answer.then(() => response.writeHead(204).end());
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterAll(() => receiver.close());

/** A funded partner whose webhookUrl is the receiver above. */
async function listeningPartner() {
  const partner = await fundedPartner(10_000);
  partners.push(partner.id);
  const token = await portalToken(partner.email, partner.password);
  const set = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` }, ...withToken(token) });
  expect(set.status, set.text).toBe(200);
  return { ...partner, token };
}

/** Each of the order's events arrived at least once, `payment.paid` first (receivers dedupe by id). */
async function expectOrderWebhooksInOrder(orderId: string) {
  await until(
    async () => (received.some((event) => event.orderId === orderId && event.type === 'provision.provisioned') ? true : undefined),
    `order ${orderId}'s provision.provisioned webhook`,
    90_000,
    250,
  );
  const types = received.filter((event) => event.orderId === orderId).map((event) => event.type);
  expect(types.indexOf('payment.paid')).toBeGreaterThanOrEqual(0);
  expect(types.indexOf('payment.paid')).toBeLessThan(types.indexOf('provision.provisioned'));
}

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

  it('when the webhooks service is paused in the middle of a delivery, past its timeout, then every event of the order still arrives, in order, and every delivery ends succeeded', async () => {
    const partner = await listeningPartner();
    const planId = await planFor(['FR'], 1024);
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    let answer!: () => void;
    holdNext = { arrived, answer: new Promise<void>((resolve) => (answer = resolve)) };

    const placed = await api('/partner/orders', { body: orderBody(planId), ...withKey(partner.apiKey) });
    expect(placed.status, placed.text).toBe(201);
    await arrival;
    await pause('webhooks');
    try {
      // The receiver answers 204 to a process that cannot read it, then the process sleeps past WEBHOOK_TIMEOUT_MS and its lease.
      answer();
      await sleep(6_000);
    } finally {
      await resume('webhooks');
    }
    await expectOrderWebhooksInOrder(placed.body.id);
    const deliveries = await until(
      async () => {
        const listed = await api('/partner/me/webhook-deliveries?limit=100', withToken(partner.token));
        // The top-up's wallet.credited came before the webhookUrl was set (no_endpoint); the order's two are the ones paused.
        const all = (listed.body.data as Array<{ status: string; eventType: string }>).filter((delivery) => delivery.eventType !== 'wallet.credited');
        return all.length >= 2 && all.every((delivery) => delivery.status === 'succeeded') ? all : undefined;
      },
      'every delivery to end succeeded',
      60_000,
      500,
    );
    expect(deliveries.map((delivery) => delivery.eventType).sort()).toEqual(['payment.paid', 'provision.provisioned']);
  }, 180_000);

  it('when orders is paused right after it accepts an order, while its relay may hold the event, then the order is provisioned, debited once, and its webhooks arrive in order', async () => {
    const partner = await listeningPartner();
    const planId = await planFor(['FR'], 1024);
    const placed = await api('/partner/orders', { body: orderBody(planId), ...withKey(partner.apiKey) });
    expect(placed.status, placed.text).toBe(201);
    await pause('orders');
    try {
      await sleep(8_000);
    } finally {
      await resume('orders');
    }
    const final = await until(
      async () => {
        const now = await api(`/partner/orders/${placed.body.id}`, withKey(partner.apiKey));
        return now.status === 200 && now.body.status !== 'processing' ? now.body : undefined;
      },
      'the order to settle',
      90_000,
      250,
    );
    expect(final.status).toBe('provisioned');
    expect(await ledgerOf(partner.apiKey, placed.body.id)).toEqual({ debits: 1, refunds: 0, refunded: 0 });
    await expectOrderWebhooksInOrder(placed.body.id);
  }, 180_000);

  it('when an orders replica runs 90 s behind and a provisioning replica 90 s ahead, then each order\'s webhooks still arrive in the order things happened and every cancellation is refunded once', async () => {
    const started: number[] = [];
    try {
      for (const [service, skew] of [
        ['orders', -90_000],
        ['provisioning', 90_000],
      ] as const) {
        const replica = await control<{ replica: number }>(`/replicas/${service}?clockSkewMs=${skew}`, 'POST');
        expect(replica.status, JSON.stringify(replica.body)).toBe(200);
        started.push(replica.body.replica);
      }
      const partner = await listeningPartner();
      const planId = await planFor(['FR'], 1024);
      const orders: Array<{ id: string; price: number; status: string }> = [];
      for (let i = 0; i < 6; i++) orders.push(await buy(partner.apiKey, planId));
      for (const order of orders) {
        expect(order.status).toBe('provisioned');
        const cancelled = await api(`/partner/orders/${order.id}/cancel`, { method: 'POST', ...withKey(partner.apiKey) });
        expect(cancelled.status, cancelled.text).toBe(200);
      }
      for (const order of orders) {
        await until(
          async () => (received.some((event) => event.orderId === order.id && event.type === 'order.cancelled') ? true : undefined),
          `order ${order.id}'s order.cancelled webhook`,
          60_000,
          250,
        );
        const types = [...new Set(received.filter((event) => event.orderId === order.id).map((event) => event.type))];
        expect(types, order.id).toEqual(['payment.paid', 'provision.provisioned', 'order.cancelled']);
        expect(await ledgerOf(partner.apiKey, order.id)).toEqual({ debits: 1, refunds: 1, refunded: order.price });
      }
    } finally {
      for (const index of started) await control(`/replicas/${index}/kill?signal=SIGTERM`, 'POST');
    }
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
