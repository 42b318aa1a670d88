// Protects test mode's money and supply under crashes (§14 with §7/§8): while test mode's provisioning and orders replicas and the simulator are SIGKILLed during ~30 test-mode orders (plain, provision.fail, provision.flaky customers), every test order ends final as its e-mail says, the test wallet is debited once and refunded exactly once per failure, its ledger holds, and the live wallet is untouched.
import { randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { api, control, portalToken, until, withKey, withToken, type Answer } from './support/client.js';
import { planFor } from './support/esims.js';
import { db, fundedPartner, ledgerViolations, orderBody, placeOrderPatiently } from './support/money.js';

const pool = db();
afterAll(() => pool.end());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const tolerant = (path: string, key: string): Promise<Answer> =>
  api(path, withKey(key)).catch((error: Error) => ({ status: 0, body: { code: error.message }, headers: {}, text: '' }));

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

async function killAndRestart(service: string) {
  await sleep(randomInt(0, 400));
  await control(`/services/${service}/kill?signal=SIGKILL`, 'POST');
  await sleep(300);
  const restarted = await control(`/services/${service}/start`, 'POST');
  expect(restarted.status, `${service} restarted`).toBe(200);
}

describe('test-mode orders under crashes', () => {
  it('when provisioning, orders and the simulator are SIGKILLed during test orders with magic e-mails, then each ends as its e-mail says and the test money is exact', async () => {
    const liveBalance = 10_000;
    const partner = await fundedPartner(liveBalance);
    const token = await portalToken(partner.email, partner.password);
    const issued = await api('/partner/me/test-keys', { method: 'POST', body: {}, ...withToken(token) });
    expect(issued.status, issued.text).toBe(201);
    const testKey = issued.body.key as string;
    const testAccount = `${partner.id}_test`;
    expect((await api('/partner/test/wallet/credit', { body: { amount: 5_000_000 }, ...withKey(testKey) })).status).toBe(201);
    const plan = await planFor(['FR'], 1000, 700);

    const emails = ['traveller@example.com', 'provision.fail@example.com', 'provision.flaky@example.com'];
    const placed: Array<{ id: string; email: string }> = [];
    const storm = (async () => {
      // Test orders run on test mode's own replicas (EVENT_LANES=test, as npm start runs them): those are the ones killed.
      const kills: Array<[string, number]> = [['provisioning-test', 4], ['orders-test', 10], ['supplier-sim', 16], ['provisioning-test', 22]];
      for (const [service, after] of kills) {
        await until(async () => (placed.length >= after ? true : undefined), `${after} orders placed`, 240_000, 200);
        await killAndRestart(service);
      }
    })();
    for (let i = 0; i < 30; i++) {
      const email = emails[i % emails.length]!;
      const answer = await placeOrderPatiently(testKey, { ...orderBody(plan), email });
      expect([200, 201], answer.text).toContain(answer.status);
      placed.push({ id: answer.body.id as string, email });
    }
    await storm;

    const finals = await Promise.all(placed.map(async ({ id, email }) => ({ email, order: await finalOf(testKey, id) })));
    for (const { email, order } of finals) {
      expect(order.livemode, order.id).toBe(false);
      expect(order.status, `${order.id} (${email})`).toBe(email === 'provision.fail@example.com' ? 'failed' : 'provisioned');
    }

    // Each failed order refunded exactly once; nothing else refunded; the ledger's invariants hold.
    await until(async () => {
      const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM wallet.ledger_entries WHERE partner_id = $1 AND type = 'refund'`, [testAccount]);
      return Number(rows[0]!.n) >= 10 ? true : undefined;
    }, 'the refunds', 120_000, 500);
    const { rows: refunds } = await pool.query<{ order_id: string }>(`SELECT order_id FROM wallet.ledger_entries WHERE partner_id = $1 AND type = 'refund'`, [testAccount]);
    const failedIds = finals.filter(({ order }) => order.status === 'failed').map(({ order }) => order.id).sort();
    expect(refunds.map((row) => row.order_id).sort()).toEqual(failedIds);
    expect(await ledgerViolations(pool, testAccount)).toEqual([]);

    // The live wallet never moved.
    const live = await api('/partner/wallet', withKey(partner.apiKey));
    expect(live.body.balance).toBe(liveBalance);
  }, 600_000);
});
