// Protects the event tables' retention (§11): published outbox rows go after a day and consumers' records after 35 days, in bounded batches; an unpublished row or a recent record is never deleted.
import { pruneOutbox, pruneProcessedEvents } from '@esim/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestInfra, type TestInfra } from './support/infra.js';

let infra: TestInfra;

beforeAll(async () => {
  infra = await createTestInfra('eventsretention');
});
afterAll(() => infra?.cleanup());

/** An outbox row written `ageHours` ago, published then (or never). */
async function outboxRow(id: string, ageHours: number, published: boolean): Promise<void> {
  await infra.pool.query(
    `INSERT INTO ${infra.schema}.outbox (id, subject, payload, created_at, published_at)
     VALUES ($1, 'catalog.plan.changed', '{}', now() - $2 * interval '1 hour', CASE WHEN $3 THEN now() - $2 * interval '1 hour' END)`,
    [id, ageHours, published],
  );
}

describe('outbox retention', () => {
  it('when rows were published more than a day ago, then they go in batches, and recent or unpublished rows stay', async () => {
    await outboxRow('evt_stuck', 50, false);
    for (let i = 0; i < 5; i++) await outboxRow(`evt_old_${i}`, 48 - i, true);
    await outboxRow('evt_recent', 2, true);
    await outboxRow('evt_waiting', 0, false);

    // Each statement reads only the 3 oldest rows (the head the relay has published past): the stuck one stays among them.
    expect(await pruneOutbox(infra.pool, infra.schema, 3)).toBe(2);
    expect(await pruneOutbox(infra.pool, infra.schema, 3)).toBe(2);
    expect(await pruneOutbox(infra.pool, infra.schema, 3)).toBe(1);
    expect(await pruneOutbox(infra.pool, infra.schema, 3)).toBe(0);
    const { rows } = await infra.pool.query<{ id: string }>(`SELECT id FROM ${infra.schema}.outbox ORDER BY seq`);
    expect(rows.map((row) => row.id)).toEqual(['evt_stuck', 'evt_recent', 'evt_waiting']);
  });
});

describe('processed events retention', () => {
  it('when records are older than 35 days, then they go in batches, and recent ones stay', async () => {
    const record = (consumer: string, eventId: string, ageDays: number) =>
      infra.pool.query(`INSERT INTO ${infra.schema}.processed_events (consumer, event_id, processed_at) VALUES ($1, $2, now() - $3 * interval '1 day')`, [consumer, eventId, ageDays]);
    for (let i = 0; i < 3; i++) await record('a', `evt_old_${i}`, 36 + i);
    await record('b', 'evt_old_b', 40);
    await record('a', 'evt_recent', 34);
    await record('b', 'evt_today', 0);

    expect(await pruneProcessedEvents(infra.pool, infra.schema, 3)).toBe(3);
    expect(await pruneProcessedEvents(infra.pool, infra.schema, 3)).toBe(1);
    const { rows } = await infra.pool.query<{ event_id: string }>(`SELECT event_id FROM ${infra.schema}.processed_events ORDER BY event_id`);
    expect(rows.map((row) => row.event_id)).toEqual(['evt_recent', 'evt_today']);
  });
});
