// Protects at-least-once delivery across a crash: a webhooks process killed with SIGKILL in the middle of a burst loses no event, and the duplicates it causes are bounded by the attempts it had in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { spawnWebhooks, type ChildService } from './support/childService.js';
import { paid } from './support/fixtures.js';
import { createTestEnv, eventually, type TestEnv } from './support/testEnv.js';

/*
 * How many duplicates a kill can cause: at most one per attempt that was in
 * flight in the killed process (so at most its WEBHOOK_CONCURRENCY). Such an
 * attempt may have reached the partner, and been answered 2xx, but its
 * outcome was never written; once its lease expires, another process claims
 * the delivery and sends the event again, numbered as the next attempt.
 * Nothing else duplicates: the consumer records each event id in the same
 * transaction as its delivery row (a redelivered event is skipped), and the
 * outbox relay's republish after a crash carries the same Nats-Msg-Id, which
 * JetStream drops. A (event, attempt number) pair is never sent twice,
 * because the number is taken when the attempt is claimed.
 */

let env: TestEnv;
const children: ChildService[] = [];
const events = 200;
const config = {
  WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,400ms,800ms,1s,1s,1s,1s,1s,1s',
  // The lease is the timeout plus 8 s: short here, so the killed process's attempts come back quickly.
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_CONCURRENCY: '16',
  WEBHOOK_PARTNER_CONCURRENCY: '16',
};

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  for (const child of children) await child.kill();
  await env?.cleanup();
});

describe('a webhooks process killed mid-burst', () => {
  it('when it is SIGKILLed while a slow receiver fails 20 % of requests, then after a restart every event is delivered and duplicates stay within what was in flight', { timeout: 120_000 }, async () => {
    const partner = env.addPartner();
    env.receiver.behave(partner.path, () => ({ status: Math.random() < 0.2 ? 500 : 200, delayMs: 50 + Math.floor(Math.random() * 150) }));

    const first = await spawnWebhooks({ ...env.baseEnv(), ...config });
    children.push(first);
    const ids: string[] = [];
    for (let i = 0; i < events; i++) ids.push(await env.publish(paid(partner.id, newId('ord'))));

    expect(await eventually(() => env.receiver.on(partner.path).length >= 60, 30_000)).toBe(true);
    await first.kill();
    const [leased] = await env.query<{ inFlight: number }>(
      `SELECT count(*)::int AS "inFlight" FROM webhooks.deliveries WHERE status = 'pending' AND locked_until > now()`,
    );
    const inFlight = leased!.inFlight;
    const deliveredBeforeRestart = await env.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status = 'succeeded'`);
    expect(deliveredBeforeRestart[0]!.n).toBeLessThan(events);

    children.push(await spawnWebhooks({ ...env.baseEnv(), ...config }));
    const allSucceeded = async () => {
      const rows = await env.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status = 'succeeded'`);
      return rows[0]!.n === events;
    };
    expect(await eventually(allSucceeded, 90_000)).toBe(true);

    const accepted = new Map<string, number>();
    const attemptsSent = new Map<string, number>();
    for (const request of env.receiver.on(partner.path)) {
      const eventId = String(request.headers['webhook-id']);
      const key = `${eventId}#${String(request.headers['x-service-delivery-attempt'])}`;
      attemptsSent.set(key, (attemptsSent.get(key) ?? 0) + 1);
      if (request.answered === 200) accepted.set(eventId, (accepted.get(eventId) ?? 0) + 1);
    }
    // Every event reached the partner and was accepted at least once.
    expect(ids.filter((id) => !accepted.has(id))).toEqual([]);
    const duplicates = [...accepted.values()].reduce((sum, count) => sum + count - 1, 0);
    console.info(`kill test: ${inFlight} attempts in flight at the kill, ${duplicates} duplicate deliveries`);
    expect(duplicates).toBeLessThanOrEqual(inFlight);
    expect(inFlight).toBeLessThanOrEqual(Number(config.WEBHOOK_CONCURRENCY));
    expect([...attemptsSent.values()].every((count) => count === 1)).toBe(true);
    const stored = await env.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks.events');
    expect(stored[0]!.n).toBe(events);
  });
});
