// Protects the transactional outbox: only committed events are published, in order, each once in the stream even when the relay publishes it twice, with two relays on one schema.
import { jetstreamManager } from '@nats-io/jetstream';
import { enqueueEvent, ensureStreams, startOutboxRelay, type OutboxRelay } from '@esim/events';
import { createPool, withTransaction } from '@esim/postgres';
import { createLogger } from '@esim/telemetry';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestInfra, until, type TestInfra } from './support/infra.js';

const logger = createLogger('outbox-test', 'silent');
const type = 'catalog.plan.changed';
let infra: TestInfra;
const relays: OutboxRelay[] = [];

beforeAll(async () => {
  infra = await createTestInfra('events');
  await ensureStreams(infra.nc, infra.ns, ['CATALOG']);
});
afterAll(() => infra?.cleanup());

beforeEach(async () => {
  await infra.pool.query(`TRUNCATE ${infra.schema}.outbox`);
  await (await jetstreamManager(infra.nc)).streams.purge(infra.ns.stream('CATALOG'));
});
afterEach(async () => {
  for (const relay of relays.splice(0)) await relay.stop();
});

function relay(options: { pool?: typeof infra.pool; batchSize?: number } = {}): OutboxRelay {
  const started = startOutboxRelay({ pool: options.pool ?? infra.pool, schema: infra.schema, nc: infra.nc, ns: infra.ns, logger, pollMs: 10, batchSize: options.batchSize });
  relays.push(started);
  return started;
}

/** Commits one event in its own transaction, as a use case would. */
function commitEvent(planId: string): Promise<string> {
  return withTransaction(infra.pool, (db) => enqueueEvent(db, infra.schema, type, { planId, active: true }));
}

interface Published {
  subject: string;
  msgId: string | undefined;
  envelope: { id: string; type: string; data: { planId: string } };
}

/** Every message in the namespace's CATALOG stream, in stream order. */
async function streamContents(): Promise<Published[]> {
  const jsm = await jetstreamManager(infra.nc);
  const stream = infra.ns.stream('CATALOG');
  const { state } = await jsm.streams.info(stream);
  const messages: Published[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq });
    if (message) messages.push({ subject: message.subject, msgId: message.header?.get('Nats-Msg-Id') || undefined, envelope: message.json() });
  }
  return messages;
}

async function unpublished(): Promise<number> {
  const { rows } = await infra.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${infra.schema}.outbox WHERE published_at IS NULL`);
  return rows[0]!.n;
}

const untilAllPublished = () => until(async () => ((await unpublished()) === 0 ? true : undefined), 'every outbox row to be marked published');

describe('the outbox relay', () => {
  it('when it listens and polls only once an hour, then a committed event is still published at once (the commit wakes it)', async () => {
    relays.push(startOutboxRelay({ pool: infra.pool, schema: infra.schema, nc: infra.nc, ns: infra.ns, logger, pollMs: 3_600_000, idlePollMs: 3_600_000 }));
    // The first tick (at start) finds nothing; from then on only a NOTIFY can wake the relay.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const id = await commitEvent('plan_woken');
    await until(async () => ((await streamContents()).some((m) => m.envelope.id === id) ? true : undefined), 'the event to be published');
  });

  it('when a row commits without its notification (lost with a connection), then the safety-net poll still publishes it', async () => {
    relays.push(startOutboxRelay({ pool: infra.pool, schema: infra.schema, nc: infra.nc, ns: infra.ns, logger, pollMs: 3_600_000, idlePollMs: 100 }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const id = 'evt_lost_notification';
    const envelope = { id, type, occurredAt: new Date().toISOString(), data: { planId: 'plan_unannounced', active: true } };
    // Written as enqueueEvent would, minus its pg_notify: only the poll can find it.
    await infra.pool.query(`INSERT INTO ${infra.schema}.outbox (id, subject, payload, headers) VALUES ($1, $2, $3, '{}')`, [id, type, JSON.stringify(envelope)]);
    await untilAllPublished();
    expect((await streamContents()).map((m) => [m.msgId, m.envelope.data.planId])).toEqual([[id, 'plan_unannounced']]);
  });

  it('when rows are committed, then they are published in commit order with Nats-Msg-Id = event id and marked published', async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await commitEvent(`plan_${i}`));
    relay();
    await untilAllPublished();
    const published = await streamContents();
    expect(published.map((m) => m.msgId)).toEqual(ids);
    expect(published.map((m) => m.envelope.id)).toEqual(ids);
    expect(published.map((m) => m.envelope.data.planId)).toEqual(['plan_1', 'plan_2', 'plan_3', 'plan_4', 'plan_5']);
    expect(new Set(published.map((m) => m.subject))).toEqual(new Set([infra.ns.subject(type)]));
  });

  it('when a row is published again (the relay died before marking it), then the stream keeps one copy', async () => {
    const first = await commitEvent('plan_once');
    relay();
    await untilAllPublished();
    expect(await infra.streamMessages('CATALOG')).toBe(1);

    // As if the relay had crashed between the publish and the UPDATE.
    await infra.pool.query(`UPDATE ${infra.schema}.outbox SET published_at = NULL WHERE id = $1`, [first]);
    const second = await commitEvent('plan_after');
    await untilAllPublished();
    expect((await streamContents()).map((m) => m.envelope.id)).toEqual([first, second]);
  });

  it('when the transaction that enqueued an event is still open or rolls back, then nothing of it is published', async () => {
    relay();
    const client = await infra.pool.connect();
    try {
      await client.query('BEGIN');
      const rolledBack = await enqueueEvent(client, infra.schema, type, { planId: 'plan_rolled_back', active: false });
      const whileOpen = await commitEvent('plan_while_open');
      await until(async () => ((await streamContents()).length === 1 ? true : undefined), 'the committed event to be published');
      await client.query('ROLLBACK');
      const after = await commitEvent('plan_after_rollback');
      await untilAllPublished();
      const ids = (await streamContents()).map((m) => m.envelope.id);
      expect(ids).toEqual([whileOpen, after]);
      expect(ids).not.toContain(rolledBack);
    } finally {
      client.release();
    }
  });

  it('when a transaction took its seq before others but commits after them, then its row is still published, after theirs, without the safety-net poll', async () => {
    // Only commits wake this relay: a row its scan floor skipped would never be published.
    relays.push(startOutboxRelay({ pool: infra.pool, schema: infra.schema, nc: infra.nc, ns: infra.ns, logger, pollMs: 10, idlePollMs: 3_600_000 }));
    const late = await infra.pool.connect();
    try {
      await late.query('BEGIN');
      const lateId = await enqueueEvent(late, infra.schema, type, { planId: 'plan_late', active: true });
      const earlier: string[] = [];
      // Enough claims for the floor to move as far as it may while the late transaction runs.
      for (let i = 0; i < 12; i++) {
        earlier.push(await commitEvent(`plan_early_${i}`));
        await until(async () => ((await streamContents()).length === earlier.length ? true : undefined), `event ${i} to be published`);
      }
      await late.query('COMMIT');
      const after = await commitEvent('plan_after_late');
      await untilAllPublished();
      const ids = (await streamContents()).map((m) => m.envelope.id);
      expect(ids).toEqual([...earlier, lateId, after]);
      const { rows } = await infra.pool.query<{ id: string }>(`SELECT id FROM ${infra.schema}.outbox ORDER BY seq`);
      expect(rows[0]!.id).toBe(lateId);
    } finally {
      late.release();
    }
  });

  it('when two relays run on one schema while events are committed, then each event is published once, in commit order', async () => {
    // A plain subscriber sees every publish, even one the stream then drops as a duplicate: it shows whether the relays took turns.
    const publishes: string[] = [];
    const subscription = infra.nc.subscribe(infra.ns.subject(type), {
      callback: (_, message) => {
        publishes.push(message.headers?.get('Nats-Msg-Id') ?? '');
      },
    });
    const otherPool = createPool(infra.databaseUrl, { applicationName: 'outbox-test-2', max: 2 });
    try {
      relay({ batchSize: 2 });
      relay({ pool: otherPool, batchSize: 2 });
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push(await commitEvent(`plan_${i}`));
      await untilAllPublished();
      await infra.nc.flush();
      expect(publishes).toEqual(ids);
      expect((await streamContents()).map((m) => m.envelope.id)).toEqual(ids);
    } finally {
      subscription.unsubscribe();
      for (const running of relays.splice(0)) await running.stop();
      await otherPool.end();
    }
  });

  it('when a publish in the middle of a batch fails, then the rows before it stay marked published and it and the rows after it are left for the next tick', async () => {
    const first = await commitEvent('plan_before');
    // A subject no stream captures: JetStream answers "no responders" and the publish is rejected.
    await infra.pool.query(`INSERT INTO ${infra.schema}.outbox (id, subject, payload, headers) VALUES ('evt_nowhere', 'nowhere.at.all', '{}', '{}')`);
    const last = await commitEvent('plan_after');
    relay();
    await until(async () => {
      const { rows } = await infra.pool.query<{ published_at: Date | null }>(`SELECT published_at FROM ${infra.schema}.outbox WHERE id = $1`, [first]);
      return rows[0]?.published_at ? true : undefined;
    }, 'the first row to be marked published');
    const { rows } = await infra.pool.query<{ id: string }>(`SELECT id FROM ${infra.schema}.outbox WHERE published_at IS NULL ORDER BY seq`);
    expect(rows.map((row) => row.id)).toEqual(['evt_nowhere', last]);
    // The row after the failure was sent too (publishes are pipelined) and is sent again each tick: the stream keeps one copy.
    expect((await streamContents()).map((m) => m.envelope.id)).toEqual([first, last]);
  });

  it('when the data does not match the event schema, then enqueueEvent throws and writes no row', async () => {
    await expect(
      withTransaction(infra.pool, (db) => enqueueEvent(db, infra.schema, type, { planId: 42 } as never)),
    ).rejects.toThrow(/planId|expected string/i);
    const { rows } = await infra.pool.query(`SELECT id FROM ${infra.schema}.outbox`);
    expect(rows).toEqual([]);
  });
});
