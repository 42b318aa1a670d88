// Protects the order saga under failure: whatever dies mid-load (orders, wallet, provisioning, NATS), every order settles exactly once, no money is lost or doubled, and every partner-facing event is in the stream exactly once, in order.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, api, control, platform, until, withKey, type Onboarded } from './support/client.js';
import { db, extraKeys, fundedPartner, ledgerViolations, orderBody, partnerEventsInStream, placeOrderPatiently, planWithSku, type StreamedPartnerEvent } from './support/money.js';

const pool = db();
afterAll(() => pool.end());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Load {
  partner: Onboarded;
  keys: string[];
  plans: { normal: string; fail: string; flaky: string };
}

let plans: Load['plans'];
beforeAll(async () => {
  // Other files add FAIL-/FLAKY- plans to the shared platform's catalog: the normal plan is one whose SKU provisions.
  const catalog = await admin('/plans?active=true&limit=100');
  const normal = (catalog.body.data as Array<{ id: string; supplierSku: string }>).find((plan) => !/^(FAIL|FLAKY)-/.test(plan.supplierSku));
  plans = { normal: normal!.id, fail: await planWithSku('FAIL'), flaky: await planWithSku('FLAKY') };
});

async function newLoad(): Promise<Load> {
  const partner = await fundedPartner(50_000_000);
  return { partner, keys: [partner.apiKey, ...(await extraKeys(partner, 3))], plans };
}

/** `count` orders, a fifth FAIL-, a fifth FLAKY-, placed `concurrency` at a time while `disrupt` runs beside them. */
async function runLoad(load: Load, count: number, disrupt: (progress: () => number) => Promise<void>) {
  const bodies = Array.from({ length: count }, (_, i) => {
    const kind = i % 5 === 0 ? 'fail' : i % 5 === 1 ? 'flaky' : 'normal';
    return { kind, body: orderBody(load.plans[kind], `saga-${i}-${randomInt(1e9)}`) };
  });
  let done = 0;
  const answers: Array<{ kind: string; clientRequestId: string; status: number; orderId?: string }> = [];
  const worker = async (index: number) => {
    for (let i = index; i < bodies.length; i += 8) {
      const { kind, body } = bodies[i]!;
      const answer = await placeOrderPatiently(load.keys[i % load.keys.length]!, body, 120_000);
      answers.push({ kind, clientRequestId: body.clientRequestId, status: answer.status, orderId: answer.body?.id });
      done++;
    }
  };
  await Promise.all([...Array.from({ length: 8 }, (_, i) => worker(i)), disrupt(() => done / count)]);
  return answers;
}

async function killAndRestart(service: string, when: number, progress: () => number) {
  await until(async () => (progress() >= when ? true : undefined), `${Math.round(when * 100)} % of the load`, 120_000);
  await sleep(randomInt(0, 300));
  await control(`/services/${service}/kill?signal=SIGKILL`, 'POST');
  await sleep(500);
  const restarted = await control(`/services/${service}/start`, 'POST');
  expect(restarted.status, `${service} restarted`).toBe(200);
}

/** Every order of the load reaches a final state, once, and money and events agree with it. */
async function expectSettled(load: Load, answers: Awaited<ReturnType<typeof runLoad>>) {
  expect(answers.filter((a) => a.status !== 201 && a.status !== 200), 'every order accepted (after retries)').toEqual([]);
  const byRequest = new Map(answers.map((a) => [a.clientRequestId, a]));
  const settled = await until(
    async () => {
      const { body } = await admin(`/orders?partnerId=${load.partner.id}&limit=100&page=1`);
      const total = body.pagination.total as number;
      const all = [...body.data];
      for (let page = 2; page <= body.pagination.totalPages; page++) all.push(...(await admin(`/orders?partnerId=${load.partner.id}&limit=100&page=${page}`)).body.data);
      return total === answers.length && all.every((o) => o.status !== 'processing') ? all : undefined;
    },
    'every order to settle',
    180_000,
  );
  // One order per clientRequestId, each in the final state its SKU calls for.
  expect(new Set(settled.map((o) => o.clientRequestId)).size).toBe(answers.length);
  for (const order of settled) {
    const kind = byRequest.get(order.clientRequestId)!.kind;
    expect(order.id).toBe(byRequest.get(order.clientRequestId)!.orderId);
    expect(order.status, `${kind} order ${order.id}`).toBe(kind === 'fail' ? 'failed' : 'provisioned');
    if (order.status === 'provisioned') expect(order.esim.activationCode).toMatch(/^LPA:1\$[^$]+\$[^$]+$/);
    else expect(order.failureReason).toEqual(expect.any(String));
  }
  // Money: one debit per order, one refund per failed order, balance = sum of the ledger.
  expect(await ledgerViolations(pool, load.partner.id)).toEqual([]);
  const { rows } = await pool.query<{ type: string; n: number }>(
    'SELECT type, count(*)::int AS n FROM wallet.ledger_entries WHERE partner_id = $1 GROUP BY type',
    [load.partner.id],
  );
  const counts = Object.fromEntries(rows.map((r) => [r.type, r.n]));
  expect(counts.order_debit).toBe(answers.length);
  expect(counts.refund).toBe(settled.filter((o) => o.status === 'failed').length);
  // Events: per order exactly one payment.paid, then exactly one provision.*, no event id twice.
  // The last events may still be in an outbox (a relay retrying after an outage): wait for them, bounded.
  const expectedEvents = (status: string) => ['payment.paid', status === 'provisioned' ? 'provision.provisioned' : 'provision.failed'];
  const eventsOf = (events: StreamedPartnerEvent[], orderId: string) => events.filter((e) => e.orderId === orderId).map((e) => e.type);
  let events: StreamedPartnerEvent[] = [];
  await until(
    async () => {
      events = await partnerEventsInStream(load.partner.id);
      return settled.every((order) => eventsOf(events, order.id).length >= 2) ? true : undefined;
    },
    'every order’s partner events in the stream',
    30_000,
  ).catch(() => undefined);
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  for (const order of settled) expect(eventsOf(events, order.id), `events of ${order.id}`).toEqual(expectedEvents(order.status));
}

describe('order saga under crashes', () => {
  it('when orders, wallet and provisioning are each SIGKILLed at a random moment of a mixed load, then every order settles once with its money and events exact', async () => {
    const load = await newLoad();
    const answers = await runLoad(load, 200, async (progress) => {
      await killAndRestart('orders', 0.15 + Math.random() * 0.1, progress);
      await killAndRestart('wallet', 0.4 + Math.random() * 0.1, progress);
      await killAndRestart('provisioning', 0.65 + Math.random() * 0.1, progress);
    });
    await expectSettled(load, answers);
  }, 400_000);

  it.runIf(platform.natsRestartable)('when the NATS server restarts mid-load, then every order settles once with its money and events exact', async () => {
    const load = await newLoad();
    const answers = await runLoad(load, 150, async (progress) => {
      await until(async () => (progress() >= 0.4 ? true : undefined), '40 % of the load', 120_000);
      const restarted = await control('/nats/restart?downMs=1500', 'POST');
      expect(restarted.status).toBe(200);
    });
    await expectSettled(load, answers);
  }, 400_000);

  it('when two replicas of orders, wallet and provisioning run during the load, then every order settles once with its money and events exact', async () => {
    const started: number[] = [];
    for (const service of ['orders', 'wallet', 'provisioning']) {
      const replica = await control<{ replica: number }>(`/replicas/${service}`, 'POST');
      expect(replica.status, `${service} replica`).toBe(200);
      started.push(replica.body.replica);
    }
    try {
      const load = await newLoad();
      const answers = await runLoad(load, 150, async () => {});
      await expectSettled(load, answers);
    } finally {
      for (const replica of started) await control(`/replicas/${replica}/kill?signal=SIGTERM`, 'POST');
    }
  }, 400_000);
});

describe('a partner retrying after an outage', () => {
  it('when the wallet is down, then an order answers 503 and the same request later succeeds once', async () => {
    const partner = await fundedPartner(10_000);
    const body = orderBody(plans.normal);
    await control('/services/wallet/kill?signal=SIGKILL', 'POST');
    let during;
    try {
      during = await api('/partner/orders', { body, ...withKey(partner.apiKey) });
    } finally {
      await control('/services/wallet/start', 'POST');
    }
    expect(during.status).toBe(503);
    expect(during.body.code).toBe('UNAVAILABLE');
    const after = await placeOrderPatiently(partner.apiKey, body, 60_000);
    expect([200, 201]).toContain(after.status);
    const again = await api('/partner/orders', { body, ...withKey(partner.apiKey) });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(after.body.id);
    expect(await ledgerViolations(pool, partner.id)).toEqual([]);
  }, 120_000);
});
