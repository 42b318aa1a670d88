// Protects batch consumers: what waits is applied in one transaction in stream order and acked after its commit; a failing batch falls back to one event at a time (a poison event dead-lettered alone, its neighbours applied once, an ordered consumer's order kept); a crash between commit and ack applies nothing twice.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectNats, countDeadLetters, ensureStreams, exactlyOnce, exactlyOnceBatch, startConsumer, type EventEnvelope, type RunningConsumer } from '@esim/events';
import { newId } from '@esim/ids';
import type { PoolClient } from '@esim/postgres';
import { createLogger } from '@esim/telemetry';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestInfra, natsUrl, until, type TestInfra } from './support/infra.js';

const logger = createLogger('batch-consumer-test', 'silent');
const type = 'catalog.plan.changed';
type PlanChanged = EventEnvelope<typeof type>;
const ackWaitMs = 300;
let infra: TestInfra;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  infra = await createTestInfra('batch_consumer');
  await ensureStreams(infra.nc, infra.ns, ['CATALOG']);
  // No unique key: an effect applied twice shows as two rows; `n` is the order of application, `tx` its transaction.
  await infra.pool.query(`CREATE TABLE ${infra.schema}.applied (n bigserial, event_id text NOT NULL, plan_id text NOT NULL, tx bigint NOT NULL)`);
});
afterAll(() => infra?.cleanup());

beforeEach(async () => {
  await (await jetstreamManager(infra.nc)).streams.purge(infra.ns.stream('CATALOG'));
  await infra.pool.query(`TRUNCATE ${infra.schema}.applied`);
});
afterEach(async () => {
  for (const consumer of running.splice(0)) await consumer.stop();
});

function envelope(planId: string): PlanChanged {
  return { id: newId('evt'), type, occurredAt: new Date().toISOString(), data: { planId, active: true } };
}

async function publish(event: PlanChanged): Promise<number> {
  return (await jetstream(infra.nc).publish(infra.ns.subject(type), JSON.stringify(event), { msgID: newId('evt') })).seq;
}

const record = (event: PlanChanged, db: PoolClient) =>
  db.query(`INSERT INTO ${infra.schema}.applied (event_id, plan_id, tx) VALUES ($1, $2, txid_current())`, [event.id, event.data.planId]).then(() => undefined);

/** A handler that records, parked on the event named `gate` until `release`: the events published meanwhile wait, and form one batch. */
function gated(inner: (event: PlanChanged, db: PoolClient) => Promise<void> = record) {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  const handle = async (event: PlanChanged, db: PoolClient) => {
    if (event.data.planId === 'gate') await opened;
    await inner(event, db);
  };
  return { handle, release };
}

async function consumeInBatches(
  durable: string,
  handle: (event: PlanChanged, db: PoolClient) => Promise<void>,
  options: { maxDeliver?: number; ordered?: boolean; nc?: TestInfra['nc'] } = {},
): Promise<RunningConsumer> {
  const consumer = await startConsumer({
    nc: options.nc ?? infra.nc,
    ns: infra.ns,
    logger,
    spec: { durable, type, ackWaitMs, maxDeliver: options.maxDeliver ?? 5, retry: { firstMs: 50, maxMs: 50, jitter: 0 }, ordered: options.ordered, batch: 16 },
    handle: exactlyOnce(infra.pool, infra.schema, durable, handle),
    applyBatch: exactlyOnceBatch(infra.pool, infra.schema, durable, handle),
  });
  if (!options.nc) running.push(consumer);
  return consumer;
}

async function consumerInfo(durable: string) {
  const info = await (await jetstreamManager(infra.nc)).consumers.info(infra.ns.stream('CATALOG'), infra.ns.durable(durable));
  return { deliveries: info.delivered.consumer_seq, redelivered: info.num_redelivered, ackPending: info.num_ack_pending, pending: info.num_pending };
}

/** Waits until every published event was delivered to the consumer and not yet acked (it holds them all). */
const untilHeld = (durable: string, n: number) => until(async () => ((await consumerInfo(durable)).ackPending === n ? true : undefined), `${n} events delivered to ${durable}`);

/** After two ack waits, anything unacked or naked would have been redelivered: the bound that proves it was not. */
async function settledConsumer(durable: string) {
  await new Promise((resolve) => setTimeout(resolve, 2 * ackWaitMs));
  return consumerInfo(durable);
}

async function applied(): Promise<Array<{ planId: string; tx: string }>> {
  const { rows } = await infra.pool.query<{ plan_id: string; tx: string }>(`SELECT plan_id, tx FROM ${infra.schema}.applied ORDER BY n`);
  return rows.map((row) => ({ planId: row.plan_id, tx: row.tx }));
}

const untilAppliedCount = (n: number) => until(async () => ((await applied()).length >= n ? true : undefined), `${n} effects applied`);

describe('batches', () => {
  it('when several events wait, then they are applied in stream order in one transaction and all acked once it committed', async () => {
    const { handle, release } = gated();
    await consumeInBatches('batch_commit', handle);
    await publish(envelope('gate'));
    // The gate held alone first: published together, the gate and plan_1 could be taken as one batch.
    await untilHeld('batch_commit', 1);
    const plans = ['plan_1', 'plan_2', 'plan_3', 'plan_4', 'plan_5', 'plan_6'];
    for (const plan of plans) await publish(envelope(plan));
    await untilHeld('batch_commit', 7);
    release();
    await untilAppliedCount(7);
    const rows = await applied();
    expect(rows.map((row) => row.planId)).toEqual(['gate', ...plans]);
    // The gate was a batch of its own; the six that waited behind it, one transaction.
    expect(new Set(rows.slice(1).map((row) => row.tx)).size).toBe(1);
    expect(rows[0]!.tx).not.toBe(rows[1]!.tx);
    expect(await settledConsumer('batch_commit')).toMatchObject({ deliveries: 7, redelivered: 0, ackPending: 0, pending: 0 });
    const { rows: processed } = await infra.pool.query(`SELECT count(*)::int AS n FROM ${infra.schema}.processed_events WHERE consumer = 'batch_commit'`);
    expect(processed[0].n).toBe(7);
  });

  it('when an event id is twice in one batch (a redelivery beside its original), then it is applied once', async () => {
    const { handle, release } = gated();
    await consumeInBatches('batch_twice', handle);
    await publish(envelope('gate'));
    const twice = envelope('plan_twice');
    await publish(twice);
    await publish(twice);
    await publish(envelope('plan_after'));
    await untilHeld('batch_twice', 4);
    release();
    await untilAppliedCount(3);
    expect(await settledConsumer('batch_twice')).toMatchObject({ ackPending: 0, pending: 0 });
    expect((await applied()).map((row) => row.planId)).toEqual(['gate', 'plan_twice', 'plan_after']);
  });

  it('when one event of a batch keeps failing, then the batch is rolled back, its neighbours are applied once each, and it alone is dead-lettered after maxDeliver', async () => {
    let poisonTries = 0;
    const { handle, release } = gated(async (event, db) => {
      await record(event, db);
      if (event.data.planId === 'plan_poison') {
        poisonTries += 1;
        throw new Error('cannot apply this one');
      }
    });
    await consumeInBatches('batch_poison', handle, { maxDeliver: 3 });
    await publish(envelope('gate'));
    for (const plan of ['plan_a', 'plan_poison', 'plan_b']) await publish(envelope(plan));
    await untilHeld('batch_poison', 4);
    release();
    await until(async () => ((await countDeadLetters(infra.nc, infra.ns, 'batch_poison')) === 1 ? true : undefined), 'the poison event to be dead-lettered');
    // Its neighbours each once (the batch's writes were rolled back with it), the poison never (each try rolled back).
    expect((await applied()).map((row) => row.planId)).toEqual(['gate', 'plan_a', 'plan_b']);
    // Once in the batch, then once per delivery on its own.
    expect(poisonTries).toBe(1 + 3);
    expect(await settledConsumer('batch_poison')).toMatchObject({ ackPending: 0, pending: 0 });
    const { rows } = await infra.pool.query(`SELECT count(*)::int AS n FROM ${infra.schema}.processed_events WHERE consumer = 'batch_poison'`);
    expect(rows[0].n).toBe(3);
  });

  it('when the first event of an ordered batch fails for a while, then it is retried in place and the ones behind it never overtake it', async () => {
    let failuresLeft = 2;
    const { handle, release } = gated(async (event, db) => {
      if (event.data.planId === 'plan_first' && failuresLeft > 0) {
        failuresLeft -= 1;
        throw new Error('database down');
      }
      await record(event, db);
    });
    await consumeInBatches('batch_ordered', handle, { ordered: true, maxDeliver: 10 });
    await publish(envelope('gate'));
    for (const plan of ['plan_first', 'plan_second', 'plan_third']) await publish(envelope(plan));
    await untilHeld('batch_ordered', 4);
    release();
    await untilAppliedCount(4);
    expect((await applied()).map((row) => row.planId)).toEqual(['gate', 'plan_first', 'plan_second', 'plan_third']);
    expect(await settledConsumer('batch_ordered')).toMatchObject({ ackPending: 0, pending: 0 });
  });
});

describe('stopping', () => {
  it('when a batch consumer stops with events waiting behind the one in hand, then that one commits and the next consumer gets the waiting ones after the ack wait, in stream order', async () => {
    const slowAckWaitMs = 1_000;
    let release!: () => void;
    const opened = new Promise<void>((resolve) => (release = resolve));
    const handle = async (event: PlanChanged, db: PoolClient) => {
      if (event.data.planId === 'gate') await opened;
      await record(event, db);
    };
    const spec = { durable: 'batch_stop', type, ackWaitMs: slowAckWaitMs, maxDeliver: 5, batch: 16 } as const;
    const first = await startConsumer({
      nc: infra.nc,
      ns: infra.ns,
      logger,
      spec,
      handle: exactlyOnce(infra.pool, infra.schema, 'batch_stop', handle),
      applyBatch: exactlyOnceBatch(infra.pool, infra.schema, 'batch_stop', handle),
    });
    await publish(envelope('gate'));
    await untilHeld('batch_stop', 1);
    for (const plan of ['plan_1', 'plan_2', 'plan_3']) await publish(envelope(plan));
    await untilHeld('batch_stop', 4);
    const stopped = first.stop();
    release();
    await stopped;
    expect((await applied()).map((row) => row.planId)).toEqual(['gate']);
    await consumeInBatches('batch_stop', handle);
    await until(async () => ((await applied()).length === 4 ? true : undefined), 'the waiting events applied by the next consumer', 10_000);
    expect((await applied()).map((row) => row.planId)).toEqual(['gate', 'plan_1', 'plan_2', 'plan_3']);
  });

  it('when a consumer declares a batch with concurrency above 1, or without a batch handler, then it does not start', async () => {
    const handle = exactlyOnce<typeof type>(infra.pool, infra.schema, 'batch_refused', record);
    const start = (spec: { concurrency?: number; batch?: number }, withBatch: boolean) =>
      startConsumer({
        nc: infra.nc,
        ns: infra.ns,
        logger,
        spec: { durable: 'batch_refused', type, ackWaitMs, maxDeliver: 5, ...spec },
        handle,
        ...(withBatch ? { applyBatch: exactlyOnceBatch<typeof type>(infra.pool, infra.schema, 'batch_refused', record) } : {}),
      });
    await expect(start({ batch: 16, concurrency: 4 }, true)).rejects.toThrow(/concurrency must be 1/);
    await expect(start({ batch: 16 }, false)).rejects.toThrow(/needs applyBatch/);
    await expect(start({ batch: 1_000 }, true)).rejects.toThrow(/from 1 to 256/);
  });
});

describe('a crash between the commit and the acks', () => {
  it('when the batch transaction fails part-way, then none of its effects nor its processed_events rows are committed', async () => {
    const apply = exactlyOnceBatch<typeof type>(infra.pool, infra.schema, 'batch_abort', async (event, db) => {
      await record(event, db);
      if (event.data.planId === 'plan_3') throw new Error('aborted');
    });
    const batch = ['plan_1', 'plan_2', 'plan_3', 'plan_4'].map(envelope);
    await expect(apply(batch, (_, work) => work())).rejects.toThrow('aborted');
    expect(await applied()).toEqual([]);
    const { rows } = await infra.pool.query(`SELECT count(*)::int AS n FROM ${infra.schema}.processed_events WHERE consumer = 'batch_abort'`);
    expect(rows[0].n).toBe(0);
  });

  it('when the process dies after the batch committed and before it acked, then the redelivered events are skipped, not applied again', async () => {
    const plans = ['plan_1', 'plan_2', 'plan_3'];
    // Waiting before the first process starts, so its first pull takes them together.
    for (const plan of plans) await publish(envelope(plan));
    const doomed = await connectNats(natsUrl, 'batch-crash-test');
    let committedInBatch = 0;
    let committedAlone = 0;
    /** The first process commits, then dies (its connection gone) before sending a single ack; it never returns. */
    const die = async () => {
      await doomed.close();
      await new Promise(() => undefined);
    };
    const single = exactlyOnce<typeof type>(infra.pool, infra.schema, 'batch_crash', record);
    const batchOf = exactlyOnceBatch<typeof type>(infra.pool, infra.schema, 'batch_crash', record);
    await startConsumer({
      nc: doomed,
      ns: infra.ns,
      logger,
      spec: { durable: 'batch_crash', type, ackWaitMs, maxDeliver: 5, batch: 16 },
      handle: async (event) => {
        await single(event);
        committedAlone += 1;
        await die();
      },
      applyBatch: async (batch, within) => {
        await batchOf(batch, within);
        committedInBatch += batch.length;
        await die();
      },
    });
    await until(async () => ((await applied()).length > 0 && doomed.isClosed() ? true : undefined), 'the first process to commit and die');
    // The second process takes over the durable: what the first committed comes back after the ack wait, and is skipped.
    let secondCalls = 0;
    await consumeInBatches('batch_crash', async (event, db) => {
      secondCalls += 1;
      await record(event, db);
    });
    await until(async () => {
      const info = await consumerInfo('batch_crash');
      return info.ackPending === 0 && info.pending === 0 && info.deliveries > plans.length ? true : undefined;
    }, 'every event acked by the second process');
    expect((await applied()).map((row) => row.planId).sort()).toEqual(plans);
    expect(committedInBatch + committedAlone).toBeGreaterThan(0);
    expect(secondCalls).toBe(plans.length - committedInBatch - committedAlone);
    // Pulled together, they were applied together (the path this test is about).
    expect(committedInBatch).toBe(plans.length);
  });
});
