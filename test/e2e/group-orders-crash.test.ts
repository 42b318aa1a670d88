// Protects §7's group orders under crashes: a group of 50 whose orders and provisioning services are SIGKILLed mid-provisioning ends settled once, with exactly the provisioned eSIMs paid for, one debit, and each of its events once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, asKey, control, until } from './support/client.js';
import { db, fundedPartner, ledgerViolations, orderBody, partnerEventsInStream, planWithSku } from './support/money.js';

const pool = db();
afterAll(() => pool.end());

let planId: string;
beforeAll(async () => {
  planId = await planWithSku('E2E-GROUP-CRASH', 400);
});

async function provisionedUnits(groupId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders.orders WHERE group_order_id = $1 AND status = 'provisioned'`, [groupId]);
  return rows[0]?.n ?? 0;
}

async function restart(service: string): Promise<void> {
  await control(`/services/${service}/kill?signal=SIGKILL`, 'POST');
  const started = await control(`/services/${service}/start`, 'POST');
  expect(started.status, `${service} restarted`).toBe(200);
}

describe('a group order under crashes', () => {
  it('when orders and provisioning are SIGKILLed while a group of 50 provisions, then it settles once with exactly its provisioned eSIMs paid for', async () => {
    const partner = await fundedPartner(1_000_000);
    const created = await asKey(partner.apiKey, '/partner/orders', { body: { ...orderBody(planId), quantity: 50 } });
    expect(created.status, created.text).toBe(201);
    const groupId = created.body.id as string;
    const unitPrice = created.body.unitPrice as number;

    // Mid-provisioning: some units done, not all.
    await until(async () => ((await provisionedUnits(groupId)) >= 3 ? true : undefined), 'the first units provisioned', 60_000, 5);
    await Promise.all([restart('provisioning'), restart('orders')]);

    const settled = await until(
      async () => {
        const answer = await admin(`/orders/${groupId}`);
        return answer.status === 200 && answer.body.status !== 'processing' ? answer.body : undefined;
      },
      'the group to settle',
      180_000,
      250,
    );
    const provisioned = settled.esims.length as number;
    expect(['provisioned', 'partially_provisioned']).toContain(settled.status);
    expect(new Set(settled.esims.map((esim: { iccid: string }) => esim.iccid)).size).toBe(provisioned);
    expect(await provisionedUnits(groupId)).toBe(provisioned);

    // Money: one debit of 50 units, and exactly the units not provisioned back (one entry at most).
    expect(await ledgerViolations(pool, partner.id)).toEqual([]);
    const { rows } = await pool.query<{ type: string; amount: number }>(
      'SELECT type, amount::float8 AS amount FROM wallet.ledger_entries WHERE order_id = $1 ORDER BY created_at',
      [groupId],
    );
    expect(rows.filter((row) => row.type === 'order_debit').map((row) => row.amount)).toEqual([-50 * unitPrice]);
    const refunded = rows.filter((row) => row.type === 'refund').reduce((sum, row) => sum + row.amount, 0);
    expect(50 * unitPrice - refunded).toBe(provisioned * unitPrice);
    expect((await asKey(partner.apiKey, '/partner/wallet')).body.balance).toBe(1_000_000 - provisioned * unitPrice);

    // Events: the group's payment.paid and provision.provisioned, once each.
    const events = await until(
      async () => {
        const all = (await partnerEventsInStream(partner.id)).filter((event) => event.orderId === groupId);
        return all.length >= 2 ? all : undefined;
      },
      'the group’s events in the stream',
      30_000,
    );
    expect(events.map((event) => event.type)).toEqual(['payment.paid', 'provision.provisioned']);
  });
});
