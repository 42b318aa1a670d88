// Protects §13's money under crashes: while orders, provisioning, wallet, the supplier simulator and the gateway are SIGKILLed at random moments of ~100 mixed top-ups and cancellations, every order ends final, is debited once and refunded exactly once if it failed or was cancelled, the balance is the ledger's sum, and every partner event is in the stream once, in order.
import { randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, api, control, until, withKey, type Answer, type Onboarded } from './support/client.js';
import { buy, planFor } from './support/esims.js';
import { db, extraKeys, fundedPartner, ledgerViolations, orderBody, partnerEventsInStream, placeOrderPatiently, planWithSku, type StreamedPartnerEvent } from './support/money.js';

const pool = db();
afterAll(() => pool.end());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const victims = ['orders', 'provisioning', 'wallet', 'supplier-sim', 'gateway'];

/** A call that survives the gateway being down: a refused connection reads as status 0. */
const tolerant = (path: string, key: string, method = 'GET'): Promise<Answer> =>
  api(path, { method, ...withKey(key) }).catch((error: Error) => ({ status: 0, body: { code: error.message }, headers: {}, text: '' }));

/** Polls the order until it is final, through restarts. */
const finalOf = (key: string, orderId: string) =>
  until(
    async () => {
      const answer = await tolerant(`/partner/orders/${orderId}`, key);
      return answer.status === 200 && answer.body.status !== 'processing' ? answer.body : undefined;
    },
    `order ${orderId} to settle`,
    180_000,
    300,
  );

/** Cancels as a careful partner does: the same call again on 503, 429 or a refused connection, until a final answer. */
async function cancelPatiently(key: string, orderId: string): Promise<Answer> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const answer = await tolerant(`/partner/orders/${orderId}/cancel`, key, 'POST');
    if (answer.status === 200 || answer.status === 404 || (answer.status === 409 && answer.body.code === 'ORDER_NOT_CANCELLABLE')) return answer;
    if (Date.now() > deadline) return answer;
    await sleep(answer.status === 429 ? 1_000 : 300);
  }
}

async function killAndRestart(service: string, when: number, progress: () => number) {
  await until(async () => (progress() >= when ? true : undefined), `${Math.round(when * 100)} % of the load`, 240_000, 200);
  await sleep(randomInt(0, 400));
  await control(`/services/${service}/kill?signal=SIGKILL`, 'POST');
  await sleep(300);
  const restarted = await control(`/services/${service}/start`, 'POST');
  expect(restarted.status, `${service} restarted`).toBe(200);
}

async function allOrders(partnerId: string): Promise<any[]> {
  const first = await admin(`/orders?partnerId=${partnerId}&limit=100&page=1`);
  const all = [...first.body.data];
  for (let page = 2; page <= first.body.pagination.totalPages; page++) all.push(...(await admin(`/orders?partnerId=${partnerId}&limit=100&page=${page}`)).body.data);
  return all;
}

describe('top-ups and cancellations under crashes', () => {
  it('when services are SIGKILLed at random during ~100 top-ups and cancellations, then every order is final and its money and events exact', async () => {
    const partner: Onboarded = await fundedPartner(50_000_000);
    const keys = [partner.apiKey, ...(await extraKeys(partner, 3))];
    const plans = { fr: await planFor(['FR'], 1000, 700), europe: await planFor(['FR', 'DE'], 500, 400), fail: await planWithSku('FAIL') };
    // Before the storm: eSIMs to top up, and eSIMs to cancel whole.
    const bases = await Promise.all(Array.from({ length: 10 }, (_, i) => buy(keys[i % keys.length]!, plans.fr)));
    const wholes = await Promise.all(Array.from({ length: 6 }, (_, i) => buy(keys[i % keys.length]!, plans.fr)));
    expect([...bases, ...wholes].map((o) => o.status)).toEqual(Array(16).fill('provisioned'));

    type Job = { kind: 'topup'; iccid: string; plan: string; cancel: boolean } | { kind: 'cancel-esim'; orderId: string };
    const jobs: Job[] = [
      ...Array.from({ length: 60 }, (_, i): Job => ({
        kind: 'topup',
        iccid: bases[i % bases.length]!.esim.iccid,
        plan: i % 10 === 3 ? plans.fail : plans.europe,
        cancel: i % 2 === 0 && i % 10 !== 3,
      })),
      ...wholes.map((order): Job => ({ kind: 'cancel-esim', orderId: order.id })),
    ].sort(() => Math.random() - 0.5);

    const cancels: Array<{ orderId: string; answer: Answer }> = [];
    const placements: Answer[] = [];
    let done = 0;
    const worker = async (index: number) => {
      for (let i = index; i < jobs.length; i += 6) {
        const job = jobs[i]!;
        const key = keys[i % keys.length]!;
        if (job.kind === 'topup') {
          const body = { ...orderBody(job.plan, `crash-${i}-${randomInt(1e9)}`), iccid: job.iccid };
          const placed = await placeOrderPatiently(key, body, 180_000);
          placements.push(placed);
          if (job.cancel && placed.body?.id) {
            const final = await finalOf(key, placed.body.id);
            if (final.status === 'provisioned') cancels.push({ orderId: final.id, answer: await cancelPatiently(key, final.id) });
          }
        } else {
          cancels.push({ orderId: job.orderId, answer: await cancelPatiently(key, job.orderId) });
        }
        done++;
      }
    };
    const progress = () => done / jobs.length;
    const storm = async () => {
      const order = [...victims].sort(() => Math.random() - 0.5);
      for (const [n, service] of order.entries()) await killAndRestart(service, 0.1 + n * 0.16 + Math.random() * 0.05, progress);
    };
    await Promise.all([...Array.from({ length: 6 }, (_, i) => worker(i)), storm()]);

    expect(placements.filter((a) => a.status !== 201 && a.status !== 200).map((a) => a.text), 'every top-up accepted (after retries)').toEqual([]);
    expect(cancels.filter((c) => c.answer.status !== 200).map((c) => `${c.orderId}: ${c.answer.status} ${c.answer.text}`), 'every unused order cancelled').toEqual([]);
    const cancelled = new Set(cancels.map((c) => c.orderId));

    // Every order final, in the state its story calls for.
    const orders = await until(
      async () => {
        const all = await allOrders(partner.id);
        return all.length === 16 + placements.length && all.every((o) => o.status !== 'processing') ? all : undefined;
      },
      'every order to be final',
      180_000,
      500,
    );
    for (const order of orders) {
      const expected = cancelled.has(order.id) ? 'cancelled' : order.planId === plans.fail ? 'failed' : 'provisioned';
      expect(order.status, `${order.kind} order ${order.id}`).toBe(expected);
    }

    // Money: one debit per order, one refund per failed or cancelled order, the balance the ledger's sum.
    await until(
      async () => {
        const { rows } = await pool.query<{ type: string; n: number }>('SELECT type, count(*)::int AS n FROM wallet.ledger_entries WHERE partner_id = $1 GROUP BY type', [partner.id]);
        const counts = Object.fromEntries(rows.map((r) => [r.type, r.n]));
        return counts.refund === orders.filter((o) => o.status !== 'provisioned').length ? true : undefined;
      },
      'every refund recorded',
      60_000,
      500,
    ).catch(() => undefined);
    expect(await ledgerViolations(pool, partner.id)).toEqual([]);
    const { rows } = await pool.query<{ order_id: string; type: string; n: number }>(
      'SELECT order_id, type, count(*)::int AS n FROM wallet.ledger_entries WHERE partner_id = $1 AND order_id IS NOT NULL GROUP BY order_id, type',
      [partner.id],
    );
    const entries = (orderId: string, type: string) => rows.find((r) => r.order_id === orderId && r.type === type)?.n ?? 0;
    for (const order of orders) {
      expect(entries(order.id, 'order_debit'), `debits of ${order.id}`).toBe(1);
      expect(entries(order.id, 'refund'), `refunds of ${order.id} (${order.status})`).toBe(order.status === 'provisioned' ? 0 : 1);
    }

    // Events: each id once; per order payment.paid, then provision.*, then order.cancelled when cancelled.
    const expectedEvents = (status: string) =>
      status === 'failed' ? ['payment.paid', 'provision.failed'] : ['payment.paid', 'provision.provisioned', ...(status === 'cancelled' ? ['order.cancelled'] : [])];
    const eventsOf = (events: StreamedPartnerEvent[], orderId: string) => events.filter((e) => e.orderId === orderId).map((e) => e.type);
    let events: StreamedPartnerEvent[] = [];
    await until(
      async () => {
        events = await partnerEventsInStream(partner.id);
        return orders.every((o) => eventsOf(events, o.id).length >= expectedEvents(o.status).length) ? true : undefined;
      },
      'every order’s partner events in the stream',
      60_000,
      1_000,
    ).catch(() => undefined);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    for (const order of orders) expect(eventsOf(events, order.id), `events of ${order.id}`).toEqual(expectedEvents(order.status));
  }, 600_000);
});
