// Protects what an operator reads of the dead letters (#14): where each came from and why, oldest first and paged, never the body (events carry e-mails, activation codes, sealed secrets), and which consumer names a redrive accepts.
import { jetstream } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { deadLetterHeaders, describeDeadLetter, ensureStreams, isKnownConsumer, listDeadLetters, startConsumer, type RunningConsumer } from '@esim/events';
import { createLogger } from '@esim/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestInfra, type TestInfra } from './support/infra.js';

const encode = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const headerOf = (values: Record<string, string>) => ({ get: (key: string) => values[key] ?? '' });
const at = new Date('2026-11-24T09:30:00.000Z');

const fullHeaders = {
  [deadLetterHeaders.subject]: 'esim.mail.requested',
  [deadLetterHeaders.consumer]: 'mailer',
  [deadLetterHeaders.reason]: 'max_deliver: smtp refused',
  [deadLetterHeaders.attempts]: '10',
  [deadLetterHeaders.streamSequence]: '42',
};

describe('describeDeadLetter', () => {
  it('when the body is an event envelope, then its id and type are shown and none of its data', () => {
    const body = { id: 'evt_1', type: 'mail.requested', occurredAt: at.toISOString(), data: { to: 'a@example.com', sealedValues: { apiKey: 'v1.secret' } } };
    const summary = describeDeadLetter({ seq: 7, subject: 'esim.deadletter.mailer', time: at, header: headerOf(fullHeaders), data: encode(body) });
    expect(summary).toEqual({
      sequence: 7,
      consumer: 'mailer',
      subject: 'esim.mail.requested',
      reason: 'max_deliver: smtp refused',
      attempts: 10,
      originalSequence: 42,
      eventId: 'evt_1',
      eventType: 'mail.requested',
      deadLetteredAt: '2026-11-24T09:30:00.000Z',
    });
    expect(JSON.stringify(summary)).not.toMatch(/secret|example\.com/);
  });

  it('when the body is not JSON, not an object, or its id is no string, then eventId and eventType are null', () => {
    for (const data of [encode('not json {'), encode([1, 2]), encode('"text"'), encode({ id: 5, type: { nested: true } }), new Uint8Array()]) {
      const summary = describeDeadLetter({ seq: 1, subject: 'esim.deadletter.mailer', time: at, header: headerOf(fullHeaders), data });
      expect({ eventId: summary.eventId, eventType: summary.eventType }).toEqual({ eventId: null, eventType: null });
    }
  });

  it('when headers are missing or malformed, then the consumer comes from the subject, attempts are 0 and the original sequence null', () => {
    const summary = describeDeadLetter({
      seq: 3,
      subject: 'esim.deadletter.wallet_order_failed',
      time: at,
      header: headerOf({ [deadLetterHeaders.attempts]: 'many', [deadLetterHeaders.streamSequence]: '-1' }),
      data: encode({ id: 'evt_2', type: 'orders.order.provisioned' }),
    });
    expect(summary).toMatchObject({ consumer: 'wallet_order_failed', subject: '', reason: '', attempts: 0, originalSequence: null });
  });

  it('when the reason is long, then at most 500 characters of it are shown', () => {
    const summary = describeDeadLetter({ seq: 1, subject: 's', time: at, header: headerOf({ ...fullHeaders, [deadLetterHeaders.reason]: 'x'.repeat(1_000) }), data: encode({}) });
    expect(summary.reason).toHaveLength(500);
  });
});

let infra: TestInfra;
const running: RunningConsumer[] = [];
beforeAll(async () => {
  infra = await createTestInfra('dllist');
});
afterAll(async () => {
  for (const consumer of running) await consumer.stop();
  await infra?.cleanup();
});

async function putDeadLetter(consumer: string, eventId: string): Promise<void> {
  const h = natsHeaders();
  h.set(deadLetterHeaders.subject, infra.ns.subject('catalog.plan.changed'));
  h.set(deadLetterHeaders.consumer, consumer);
  h.set(deadLetterHeaders.reason, 'permanent: no such plan');
  h.set(deadLetterHeaders.attempts, '1');
  h.set(deadLetterHeaders.streamSequence, '9');
  const body = { id: eventId, type: 'catalog.plan.changed', occurredAt: at.toISOString(), data: { planId: 'plan_x', active: true } };
  await jetstream(infra.nc).publish(infra.ns.subject(`deadletter.${consumer}`), JSON.stringify(body), { headers: h });
}

describe('listDeadLetters', () => {
  it('when letters of two consumers are stored, then pages run oldest first, per consumer or for all, with the total', async () => {
    expect(await listDeadLetters({ nc: infra.nc, ns: infra.ns, offset: 0, limit: 20 })).toEqual({ letters: [], total: 0 });
    for (const [consumer, id] of [['alpha', 'evt_a1'], ['beta', 'evt_b1'], ['alpha', 'evt_a2'], ['alpha', 'evt_a3']] as const) await putDeadLetter(consumer, id);
    const ids = (page: { letters: { eventId: string | null }[] }) => page.letters.map((l) => l.eventId);

    const all = await listDeadLetters({ nc: infra.nc, ns: infra.ns, offset: 0, limit: 20 });
    expect({ ids: ids(all), total: all.total }).toEqual({ ids: ['evt_a1', 'evt_b1', 'evt_a2', 'evt_a3'], total: 4 });
    expect(all.letters.map((l) => l.sequence)).toEqual([1, 2, 3, 4]);

    const alphaPage2 = await listDeadLetters({ nc: infra.nc, ns: infra.ns, durable: 'alpha', offset: 2, limit: 2 });
    expect({ ids: ids(alphaPage2), total: alphaPage2.total }).toEqual({ ids: ['evt_a3'], total: 3 });
    const beta = await listDeadLetters({ nc: infra.nc, ns: infra.ns, durable: 'beta', offset: 0, limit: 1 });
    expect(beta.letters).toEqual([
      {
        sequence: 2,
        consumer: 'beta',
        subject: infra.ns.subject('catalog.plan.changed'),
        reason: 'permanent: no such plan',
        attempts: 1,
        originalSequence: 9,
        eventId: 'evt_b1',
        eventType: 'catalog.plan.changed',
        deadLetteredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    ]);
    expect(await listDeadLetters({ nc: infra.nc, ns: infra.ns, durable: 'alpha', offset: 3, limit: 20 })).toEqual({ letters: [], total: 3 });
    expect(await listDeadLetters({ nc: infra.nc, ns: infra.ns, durable: 'gamma', offset: 0, limit: 20 })).toEqual({ letters: [], total: 0 });
  });
});

describe('isKnownConsumer', () => {
  it('when a name is a durable of the namespace or has dead letters, then it is known; otherwise not', async () => {
    await ensureStreams(infra.nc, infra.ns, ['CATALOG']);
    running.push(
      await startConsumer({
        nc: infra.nc,
        ns: infra.ns,
        logger: createLogger('dl-list-test', 'silent'),
        spec: { durable: 'catalog_watcher', type: 'catalog.plan.changed', ackWaitMs: 1_000, maxDeliver: 2 },
        handle: async () => {},
      }),
    );
    expect(await isKnownConsumer(infra.nc, infra.ns, 'catalog_watcher')).toBe(true);
    await putDeadLetter('retired_consumer', 'evt_r1');
    expect(await isKnownConsumer(infra.nc, infra.ns, 'retired_consumer')).toBe(true);
    expect(await isKnownConsumer(infra.nc, infra.ns, 'no_such_consumer')).toBe(false);
  });
});
