// Protects the idempotent consumer: a redelivered event applies once, a failure is retried up to maxDeliver, and an event that can never succeed is terminated, not redelivered.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { countDeadLetters, ensureStreams, exactlyOnce, exactlyOnceAroundCall, EventInProgressError, PermanentEventError, startConsumer, type EventEnvelope, type RunningConsumer } from '@esim/events';
import { newId } from '@esim/ids';
import type { PoolClient } from '@esim/postgres';
import { createLogger } from '@esim/telemetry';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestInfra, until, type TestInfra } from './support/infra.js';

const logger = createLogger('consumer-test', 'silent');
const type = 'catalog.plan.changed';
type PlanChanged = EventEnvelope<typeof type>;
const ackWaitMs = 300;
let infra: TestInfra;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  infra = await createTestInfra('consumer');
  await ensureStreams(infra.nc, infra.ns, ['CATALOG']);
  // No unique key: an effect applied twice shows as two rows.
  await infra.pool.query(`CREATE TABLE ${infra.schema}.applied (event_id text NOT NULL, plan_id text NOT NULL)`);
});
afterAll(() => infra?.cleanup());

beforeEach(async () => {
  await (await jetstreamManager(infra.nc)).streams.purge(infra.ns.stream('CATALOG'));
});
afterEach(async () => {
  for (const consumer of running.splice(0)) await consumer.stop();
});

function envelope(planId: string): PlanChanged {
  return { id: newId('evt'), type, occurredAt: new Date().toISOString(), data: { planId, active: true } };
}

/** Publishes straight to the stream; a fresh msgID each time, so the stream keeps a repeated envelope (a redelivery). */
async function publish(body: PlanChanged | string): Promise<number> {
  const ack = await jetstream(infra.nc).publish(infra.ns.subject(type), typeof body === 'string' ? body : JSON.stringify(body), { msgID: newId('evt') });
  return ack.seq;
}

async function consume(
  durable: string,
  handle: (event: PlanChanged) => Promise<void>,
  options: { maxDeliver?: number; retryDelayMs?: (n: number) => number; concurrency?: number; ordered?: boolean } = {},
): Promise<RunningConsumer> {
  const consumer = await startConsumer({
    nc: infra.nc,
    ns: infra.ns,
    logger,
    spec: { durable, type, ackWaitMs, maxDeliver: options.maxDeliver ?? 5, retryDelayMs: options.retryDelayMs ?? (() => 20), concurrency: options.concurrency, ordered: options.ordered },
    handle,
  });
  running.push(consumer);
  return consumer;
}

/** Records the effect through the transaction the consumer hands over. */
const record = (event: PlanChanged, db: PoolClient) =>
  db.query(`INSERT INTO ${infra.schema}.applied (event_id, plan_id) VALUES ($1, $2)`, [event.id, event.data.planId]).then(() => undefined);

async function appliedRows(eventId: string): Promise<number> {
  const { rows } = await infra.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${infra.schema}.applied WHERE event_id = $1`, [eventId]);
  return rows[0]!.n;
}

const untilApplied = (eventId: string) => until(async () => ((await appliedRows(eventId)) > 0 ? true : undefined), `event ${eventId} to be applied`);

/** The stream sequences JetStream reports as terminated by the durable (its MSG_TERMINATED advisories). */
function terminations(durable: string): { seqs: number[]; stop(): void } {
  const seqs: number[] = [];
  const subject = `$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.${infra.ns.stream('CATALOG')}.${infra.ns.durable(durable)}`;
  const subscription = infra.nc.subscribe(subject, {
    callback: (_, message) => {
      seqs.push((message.json() as { stream_seq: number }).stream_seq);
    },
  });
  return { seqs, stop: () => subscription.unsubscribe() };
}

/**
 * Waits out two ack waits, then reads the durable's state: an unacknowledged
 * or naked message would have been redelivered by then. Proving that
 * something does not happen needs a bounded wait; the ack wait is the bound.
 */
async function settledConsumer(durable: string) {
  await new Promise((resolve) => setTimeout(resolve, 2 * ackWaitMs));
  const info = await (await jetstreamManager(infra.nc)).consumers.info(infra.ns.stream('CATALOG'), infra.ns.durable(durable));
  return { deliveries: info.delivered.consumer_seq, redelivered: info.num_redelivered, ackPending: info.num_ack_pending, pending: info.num_pending };
}

describe('exactlyOnce', () => {
  it('when the same event id is delivered twice, then its effect is applied once and it is recorded as processed', async () => {
    const handle = exactlyOnce<typeof type>(infra.pool, infra.schema, 'twice', record);
    await consume('twice', handle);
    const event = envelope('plan_twice');
    const barrier = envelope('plan_barrier');
    await publish(event);
    await publish(event);
    await publish(barrier);
    await untilApplied(barrier.id);
    expect(await appliedRows(event.id)).toBe(1);
    const { rows } = await infra.pool.query(`SELECT event_id FROM ${infra.schema}.processed_events WHERE consumer = 'twice' ORDER BY event_id`);
    expect(rows.map((r) => r.event_id).sort()).toEqual([event.id, barrier.id].sort());
  });

  it('when the wrapped handler is called again with an event it applied, then it does nothing', async () => {
    const handle = exactlyOnce<typeof type>(infra.pool, infra.schema, 'direct', record);
    const event = envelope('plan_direct');
    await handle(event);
    await handle(event);
    expect(await appliedRows(event.id)).toBe(1);
  });
});

describe('exactlyOnceAroundCall', () => {
  /** The call under test: counts its runs and reports whether a transaction was open on the pool meanwhile. */
  function countedCall(label: string) {
    const runs: Array<{ openTransactions: number }> = [];
    const call = async (event: PlanChanged) => {
      const { rows } = await infra.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
      );
      runs.push({ openTransactions: rows[0]!.n });
      return `${label}:${event.data.planId}`;
    };
    return { runs, call };
  }

  it('when an event is handled, then the call runs with no transaction open and its result is recorded with the event id', async () => {
    const { runs, call } = countedCall('a');
    const handle = exactlyOnceAroundCall<typeof type, string>(infra.pool, infra.schema, 'around', {
      call,
      record: (event, result, db) => db.query(`INSERT INTO ${infra.schema}.applied (event_id, plan_id) VALUES ($1, $2)`, [event.id, result]).then(() => undefined),
    });
    const event = envelope('plan_around');
    await handle(event);
    expect(runs).toEqual([{ openTransactions: 0 }]);
    const { rows } = await infra.pool.query(`SELECT plan_id FROM ${infra.schema}.applied WHERE event_id = $1`, [event.id]);
    expect(rows).toEqual([{ plan_id: 'a:plan_around' }]);
  });

  it('when an event it recorded comes again, then neither the call nor the record runs', async () => {
    const { runs, call } = countedCall('b');
    const handle = exactlyOnceAroundCall<typeof type, string>(infra.pool, infra.schema, 'around_again', { call, record: (event, _result, db) => record(event, db) });
    const event = envelope('plan_again');
    await handle(event);
    await handle(event);
    expect(runs).toHaveLength(1);
    expect(await appliedRows(event.id)).toBe(1);
  });

  it('when two deliveries of one event run at once, then one calls, the other is turned into a retry, and the effect is recorded once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const handle = exactlyOnceAroundCall<typeof type, number>(infra.pool, infra.schema, 'around_race', {
      call: async () => {
        calls += 1;
        await gate;
        return calls;
      },
      record: (event, _result, db) => record(event, db),
    });
    const event = envelope('plan_race');
    const first = handle(event);
    await until(async () => (calls === 1 ? true : undefined), 'the first delivery to call');
    await expect(handle(event)).rejects.toBeInstanceOf(EventInProgressError);
    release();
    await first;
    await handle(event);
    expect(calls).toBe(1);
    expect(await appliedRows(event.id)).toBe(1);
  });

  it('when the call throws, then nothing is recorded and the next delivery calls again', async () => {
    let calls = 0;
    const handle = exactlyOnceAroundCall<typeof type, number>(infra.pool, infra.schema, 'around_throw', {
      call: async () => {
        calls += 1;
        if (calls === 1) throw new Error('upstream unavailable');
        return calls;
      },
      record: (event, _result, db) => record(event, db),
    });
    const event = envelope('plan_throw');
    await expect(handle(event)).rejects.toThrow('upstream unavailable');
    expect(await appliedRows(event.id)).toBe(0);
    await handle(event);
    expect(calls).toBe(2);
    expect(await appliedRows(event.id)).toBe(1);
  });
});

describe('retries', () => {
  it('when the handler throws once, then the event is naked with the retry delay, redelivered, and applied once', async () => {
    const delaysAskedFor: number[] = [];
    let calls = 0;
    const handle = exactlyOnce<typeof type>(infra.pool, infra.schema, 'flaky', async (event, db) => {
      calls += 1;
      await record(event, db);
      // The first attempt's write and its processed_events claim must roll back together.
      if (calls === 1) throw new Error('database hiccup');
    });
    await consume('flaky', handle, { retryDelayMs: (n) => (delaysAskedFor.push(n), 50) });
    const event = envelope('plan_flaky');
    await publish(event);
    await untilApplied(event.id);
    expect(calls).toBe(2);
    expect(delaysAskedFor).toEqual([1]);
    expect(await appliedRows(event.id)).toBe(1);
    expect(await settledConsumer('flaky')).toMatchObject({ deliveries: 2, redelivered: 0, ackPending: 0, pending: 0 });
  });

  it('when the handler always throws, then it is tried maxDeliver times and then terminated', async () => {
    const advisories = terminations('doomed');
    let calls = 0;
    await consume(
      'doomed',
      async () => {
        calls += 1;
        throw new Error('still broken');
      },
      { maxDeliver: 3 },
    );
    try {
      const seq = await publish(envelope('plan_doomed'));
      await until(() => (advisories.seqs.includes(seq) ? true : undefined), 'the event to be terminated');
      expect(calls).toBe(3);
      expect(await settledConsumer('doomed')).toMatchObject({ deliveries: 3, ackPending: 0 });
      expect(calls).toBe(3);
    } finally {
      advisories.stop();
    }
  });
});

describe('events that can never succeed', () => {
  it('when the handler throws PermanentEventError, then the event is terminated after one try, its claim rolled back, and never redelivered', async () => {
    const advisories = terminations('permanent');
    const seen: string[] = [];
    const handle = exactlyOnce<typeof type>(infra.pool, infra.schema, 'permanent', async (event, db) => {
      seen.push(event.data.planId);
      if (event.data.planId === 'plan_unknown') throw new PermanentEventError('no such plan');
      await record(event, db);
    });
    await consume('permanent', handle);
    try {
      const event = envelope('plan_unknown');
      const seq = await publish(event);
      const barrier = envelope('plan_known');
      await publish(barrier);
      await untilApplied(barrier.id);
      await until(() => (advisories.seqs.includes(seq) ? true : undefined), 'the event to be terminated');
      expect(await settledConsumer('permanent')).toMatchObject({ deliveries: 2, redelivered: 0, ackPending: 0 });
      expect(seen).toEqual(['plan_unknown', 'plan_known']);
      const { rows } = await infra.pool.query(`SELECT 1 FROM ${infra.schema}.processed_events WHERE event_id = $1`, [event.id]);
      expect(rows).toEqual([]);
    } finally {
      advisories.stop();
    }
  });

  it('when a message is not JSON or its data breaks the event schema, then it is terminated without reaching the handler and never redelivered', async () => {
    const advisories = terminations('poison');
    const seen: string[] = [];
    await consume('poison', async (event) => {
      seen.push(event.data.planId);
    });
    try {
      const notJson = await publish('{"id": "evt_broken", ');
      const badData = await publish(JSON.stringify({ ...envelope('x'), data: { planId: 42, active: 'yes' } }));
      const barrier = envelope('plan_after_poison');
      await publish(barrier);
      await until(() => (advisories.seqs.length === 2 ? true : undefined), 'both poison messages to be terminated');
      expect(advisories.seqs.sort()).toEqual([notJson, badData].sort());
      await until(() => (seen.length > 0 ? true : undefined), 'the valid event after the poison');
      expect(await settledConsumer('poison')).toMatchObject({ deliveries: 3, redelivered: 0, ackPending: 0, pending: 0 });
      expect(seen).toEqual(['plan_after_poison']);
      // Kept, not dropped: both are in the namespace's dead letters for an operator to read.
      expect(await countDeadLetters(infra.nc, infra.ns, 'poison')).toBe(2);
    } finally {
      advisories.stop();
    }
  });
});

describe('concurrency', () => {
  /** A handler parked until `release`, counting how many run at once. */
  function parkedHandler() {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const state = { active: 0, mostActive: 0, finished: [] as string[], release };
    const handle = async (event: PlanChanged) => {
      state.active += 1;
      state.mostActive = Math.max(state.mostActive, state.active);
      await gate;
      state.active -= 1;
      state.finished.push(event.data.planId);
    };
    return { state, handle };
  }

  for (const concurrency of [1, 3]) {
    it(`when concurrency is ${concurrency} and handlers are slow, then at most ${concurrency} run at once`, async () => {
      const { state, handle } = parkedHandler();
      await consume(`parallel_${concurrency}`, handle, { concurrency });
      for (const n of [1, 2, 3, 4]) await publish(envelope(`plan_${n}`));
      await until(() => (state.active === concurrency ? true : undefined), `${concurrency} handler(s) to be running`);
      state.release();
      await until(() => (state.finished.length === 4 ? true : undefined), 'all four events to be handled');
      expect(state.mostActive).toBe(concurrency);
      if (concurrency === 1) expect(state.finished).toEqual(['plan_1', 'plan_2', 'plan_3', 'plan_4']);
    });
  }

  it('when the consumer stops while handlers run in parallel, then stop returns only after they finish', async () => {
    const { state, handle } = parkedHandler();
    const consumer = await consume('parallel_stop', handle, { concurrency: 3 });
    await publish(envelope('plan_a'));
    await publish(envelope('plan_b'));
    await until(() => (state.active === 2 ? true : undefined), 'both handlers to be running');
    let stopped = false;
    const stopping = consumer.stop().then(() => (stopped = true));
    // Proving that stop does not return early needs a bounded wait; the handlers are parked on the gate meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false);
    state.release();
    await stopping;
    expect(state.finished.sort()).toEqual(['plan_a', 'plan_b']);
  });
});

describe('ordered consumers', () => {
  // The first event fails twice (a database outage), the second never: the order each is applied in is what a partner's webhooks inherit (§9).
  async function applyOrder(durable: string, ordered: boolean): Promise<string[]> {
    const applied: string[] = [];
    let failuresLeft = 2;
    await consume(
      durable,
      async (event) => {
        if (event.data.planId === 'plan_first' && failuresLeft > 0) {
          failuresLeft -= 1;
          throw new Error('database down');
        }
        applied.push(event.data.planId);
      },
      { ordered, retryDelayMs: () => 100, maxDeliver: 10 },
    );
    await publish(envelope('plan_first'));
    await publish(envelope('plan_second'));
    await until(async () => (applied.length === 2 ? true : undefined), 'both events applied');
    return applied;
  }

  it('when the first of two events fails for a while, then an unordered consumer lets the second overtake it', async () => {
    expect(await applyOrder('unordered', false)).toEqual(['plan_second', 'plan_first']);
  });

  it('when the first of two events fails for a while, then an ordered consumer applies them in stream order, retrying the first in place', async () => {
    expect(await applyOrder('ordered', true)).toEqual(['plan_first', 'plan_second']);
    expect(await settledConsumer('ordered')).toMatchObject({ ackPending: 0, pending: 0, redelivered: 0 });
  });
});
