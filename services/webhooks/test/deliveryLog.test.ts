// Protects the delivery log and its actions over gRPC (what the admin and partner routes expose): newest-first paging and filters, an operator retry that is audited and answers NOT_FOUND for unknown ids, the partner's test event flowing like any event, and table constraints that match the shared vocabulary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { deliveryStatuses, partnerEventTypes } from '@esim/vocabulary';
import { paid } from './support/fixtures.js';
import { createTestEnv, eventually, type TestEnv, type TestWebhooks } from './support/testEnv.js';

let env: TestEnv;
let service: TestWebhooks;

beforeAll(async () => {
  env = await createTestEnv();
  service = await env.start({ WEBHOOK_RETRY_SCHEDULE: '1h' });
});
afterAll(() => env?.cleanup());

async function settledIds(ids: string[]): Promise<boolean> {
  const rows = await env.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE event_id = ANY($1) AND status <> 'pending'`, [ids]);
  return rows[0]!.n === ids.length;
}

describe('ListDeliveries', () => {
  it('when a partner has deliveries in several states, then its log lists them newest first with every field, filtered by status and paged', async () => {
    const partner = env.addPartner();
    env.receiver.behave(partner.path, (request) => (request.body.includes('"amount":100') ? { status: 200 } : { status: 410 }));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await env.publish(paid(partner.id)));
    const orderId = newId('ord');
    const failing = await env.publish({ partnerId: partner.id, type: 'payment.paid', orderId, payload: { orderId, clientRequestId: 'req-7', amount: 7, currency: 'USD', walletBalance: 0 } });
    expect(await eventually(async () => (await settledIds(ids)) && (await env.deliveryOf(failing))?.last_status_code === 410, 10_000)).toBe(true);

    const all = await service.client.listDeliveries({ partnerId: partner.id, page: { page: 1, limit: 10 } });
    expect(all.total).toBe(4);
    // Published (and so consumed) in order: the newest delivery is the last event's.
    expect(all.deliveries.map((d) => d.eventId)).toEqual([failing, ids[2], ids[1], ids[0]]);
    const retrying = all.deliveries[0]!;
    expect(retrying).toMatchObject({ eventId: failing, eventType: 'payment.paid', partnerId: partner.id, status: 'pending', attempts: 1, lastStatusCode: 410, lastError: 'endpoint answered HTTP 410' });
    expect(Date.parse(retrying.nextAttemptAt!)).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(retrying.deliveredAt).toBeUndefined();
    const done = all.deliveries[1]!;
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1, lastStatusCode: 200 });
    expect(done.id).toMatch(/^dlv_[0-9a-z]{26}$/);
    expect(done.lastError).toBeUndefined();
    expect(done.nextAttemptAt).toBeUndefined();
    expect(Date.parse(done.deliveredAt!)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    expect(Date.parse(done.updatedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));

    const succeeded = await service.client.listDeliveries({ partnerId: partner.id, status: 'succeeded', page: { page: 2, limit: 2 } });
    expect(succeeded.total).toBe(3);
    expect(succeeded.deliveries.map((d) => d.eventId)).toEqual([ids[0]]);
    const pastTheEnd = await service.client.listDeliveries({ partnerId: partner.id, page: { page: 9, limit: 2 } });
    expect(pastTheEnd).toMatchObject({ deliveries: [], total: 4 });
  });

  it('when no partner is given, then the log spans every partner', async () => {
    const [a, b] = [env.addPartner(), env.addPartner()];
    const ids = [await env.publish(paid(a.id)), await env.publish(paid(b.id))];
    expect(await eventually(() => settledIds(ids), 10_000)).toBe(true);
    const { deliveries } = await service.client.listDeliveries({ page: { page: 1, limit: 100 } });
    expect(deliveries.map((d) => d.partnerId)).toEqual(expect.arrayContaining([a.id, b.id]));
  });

  it('when the status filter is not a delivery status, then the call fails with VALIDATION_ERROR naming status', async () => {
    await expect(service.client.listDeliveries({ status: 'delivered' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'status' }] });
  });
});

describe('RetryDelivery', () => {
  it('when the id is unknown or malformed, then it answers NOT_FOUND', async () => {
    await expect(service.client.retryDelivery({ id: newId('dlv') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.client.retryDelivery({ id: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('when an operator retries, then an audit.recorded event naming the operator and the delivery is queued in the same transaction', async () => {
    const partner = env.addPartner({ url: null });
    const eventId = await env.publish(paid(partner.id));
    expect(await eventually(async () => (await env.deliveryOf(eventId))?.status === 'no_endpoint', 10_000)).toBe(true);
    const { id } = (await env.deliveryOf(eventId))!;
    await service.client.retryDelivery({ id, audit: { operator: 'alice', requestId: 'req_audit', note: 'ticket 42' } });
    const rows = await env.query<{ payload: { data: Record<string, unknown> } }>(`SELECT payload FROM webhooks.outbox WHERE subject = 'audit.recorded'`);
    expect(rows.map((row) => row.payload.data)).toContainEqual(
      expect.objectContaining({ action: 'webhook_delivery.retried', target: id, operator: 'alice', requestId: 'req_audit', note: 'ticket 42', details: expect.objectContaining({ partnerId: partner.id, eventId }) }),
    );
  });
});

describe('SendTestEvent', () => {
  it('when a partner asks for a test, then a webhook.test event with the platform\'s message reaches its endpoint under the returned id', async () => {
    const partner = env.addPartner();
    const { eventId } = await service.client.sendTestEvent({ partnerId: partner.id });
    expect(eventId).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(await eventually(() => env.receiver.on(partner.path).length === 1, 10_000)).toBe(true);
    const [request] = env.receiver.on(partner.path);
    expect(request!.headers['x-service-event-type']).toBe('webhook.test');
    expect(JSON.parse(request!.body)).toMatchObject({ id: eventId, type: 'webhook.test', data: { message: 'This is a test event from Test Platform.' } });
  });

  it('when the partner id is not a partner id, then it answers PARTNER_NOT_FOUND and queues nothing', async () => {
    await expect(service.client.sendTestEvent({ partnerId: 'ptn_x' })).rejects.toMatchObject({ code: 'PARTNER_NOT_FOUND' });
  });
});

describe('the tables', () => {
  it('when the CHECK constraints are read back, then they list exactly the vocabulary\'s delivery statuses and event types', async () => {
    const rows = await env.query<{ table: string; definition: string }>(
      `SELECT conrelid::regclass::text AS table, pg_get_constraintdef(oid) AS definition FROM pg_constraint
       WHERE connamespace = 'webhooks'::regnamespace AND contype = 'c'`,
    );
    const listed = (table: string, column: string) => {
      const definition = rows.find((row) => row.table.endsWith(table) && row.definition.includes(`(${column} = ANY`))?.definition ?? '';
      return [...definition.matchAll(/'([^']+)'::text/g)].map((match) => match[1]).sort();
    };
    expect(listed('deliveries', 'status')).toEqual([...deliveryStatuses].sort());
    expect(listed('events', 'type')).toEqual([...partnerEventTypes].sort());
  });
});
