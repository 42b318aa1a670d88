// Protects "no order left behind": a message its consumer gives up on is kept in the namespace's dead-letter stream (never just terminated), can be redriven once the cause is fixed, and a consumer whose settings cannot be applied refuses to start.
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { countDeadLetters, deadLetterHeaders, deadLetterStream, ensureDeadLetterStream, ensureStreams, exactlyOnce, PermanentEventError, redriveDeadLetters, startConsumer, type EventEnvelope, type RunningConsumer } from '@esim/events';
import { newId } from '@esim/ids';
import { createLogger } from '@esim/telemetry';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestInfra, until, type TestInfra } from './support/infra.js';

const logger = createLogger('dead-letter-test', 'silent');
const type = 'catalog.plan.changed';
type PlanChanged = EventEnvelope<typeof type>;
let infra: TestInfra;
const running: RunningConsumer[] = [];

beforeAll(async () => {
  infra = await createTestInfra('deadletter');
  await ensureStreams(infra.nc, infra.ns, ['CATALOG']);
  await infra.pool.query(`CREATE TABLE ${infra.schema}.applied (event_id text NOT NULL)`);
});
afterAll(() => infra?.cleanup());
beforeEach(async () => {
  await (await jetstreamManager(infra.nc)).streams.purge(infra.ns.stream('CATALOG'));
});
afterEach(async () => {
  for (const consumer of running.splice(0)) await consumer.stop();
});

const envelope = (planId: string): PlanChanged => ({ id: newId('evt'), type, occurredAt: new Date().toISOString(), data: { planId, active: true } });

async function publish(event: PlanChanged): Promise<number> {
  return (await jetstream(infra.nc).publish(infra.ns.subject(type), JSON.stringify(event), { msgID: event.id })).seq;
}

async function consume(durable: string, handle: (event: PlanChanged) => Promise<void>, maxDeliver = 3): Promise<RunningConsumer> {
  const consumer = await startConsumer({
    nc: infra.nc,
    ns: infra.ns,
    logger,
    spec: { durable, type, ackWaitMs: 1_000, maxDeliver, retry: { firstMs: 20, maxMs: 50 } },
    handle,
  });
  running.push(consumer);
  return consumer;
}

describe('dead letters', () => {
  it('when a handler fails maxDeliver times, then the message is kept in the dead-letter stream with its subject, consumer, reason and attempts', async () => {
    let calls = 0;
    await consume('always_failing', async () => {
      calls += 1;
      throw new Error('database says no');
    });
    const event = envelope('plan_dead');
    const seq = await publish(event);
    await until(async () => ((await countDeadLetters(infra.nc, infra.ns, 'always_failing')) === 1 ? true : undefined), 'the dead letter');
    expect(calls).toBe(3);
    const stored = await (await jetstreamManager(infra.nc)).streams.getMessage(infra.ns.stream(deadLetterStream), { last_by_subj: infra.ns.subject('deadletter.always_failing') });
    expect(stored!.json<PlanChanged>()).toEqual(event);
    expect(stored!.header.get(deadLetterHeaders.subject)).toBe(infra.ns.subject(type));
    expect(stored!.header.get(deadLetterHeaders.consumer)).toBe('always_failing');
    expect(stored!.header.get(deadLetterHeaders.reason)).toBe('max_deliver: database says no');
    expect(stored!.header.get(deadLetterHeaders.attempts)).toBe('3');
    expect(stored!.header.get(deadLetterHeaders.streamSequence)).toBe(String(seq));
  });

  it('when dead letters are redriven after the cause is fixed, then the consumer applies each once and the dead-letter stream lets them go', async () => {
    let broken = true;
    const handle = exactlyOnce<typeof type>(infra.pool, infra.schema, 'redriven', async (event, db) => {
      if (broken) throw new Error('not yet');
      await db.query(`INSERT INTO ${infra.schema}.applied (event_id) VALUES ($1)`, [event.id]);
    });
    await consume('redriven', handle, 2);
    const events = [envelope('plan_a'), envelope('plan_b')];
    for (const event of events) await publish(event);
    await until(async () => ((await countDeadLetters(infra.nc, infra.ns, 'redriven')) === 2 ? true : undefined), 'two dead letters');

    broken = false;
    expect(await redriveDeadLetters({ nc: infra.nc, ns: infra.ns, durable: 'redriven' })).toBe(2);
    const applied = async () => (await infra.pool.query<{ event_id: string }>(`SELECT event_id FROM ${infra.schema}.applied ORDER BY event_id`)).rows.map((r) => r.event_id);
    await until(async () => ((await applied()).length === 2 ? true : undefined), 'both events applied');
    expect(await applied()).toEqual(events.map((e) => e.id).sort());
    expect(await countDeadLetters(infra.nc, infra.ns, 'redriven')).toBe(0);
    expect(await redriveDeadLetters({ nc: infra.nc, ns: infra.ns, durable: 'redriven' })).toBe(0);
  });

  it('when the consumer gives a redriven letter up again at once, then the redrive replays each stored letter once and the new copy waits', async () => {
    let calls = 0;
    await consume('hopeless', async () => {
      calls += 1;
      throw new PermanentEventError('never');
    });
    await publish(envelope('plan_hopeless'));
    await until(async () => ((await countDeadLetters(infra.nc, infra.ns, 'hopeless')) === 1 ? true : undefined), 'the first dead letter');
    expect(await redriveDeadLetters({ nc: infra.nc, ns: infra.ns, durable: 'hopeless' })).toBe(1);
    await until(async () => ((await countDeadLetters(infra.nc, infra.ns, 'hopeless')) === 1 && calls === 2 ? true : undefined), 'the letter given up again');
    expect(calls).toBe(2);
  });
});

describe('dead letters under faults (#23)', () => {
  it('when the copy to the dead-letter stream fails on the last delivery, then the message is delivered again and kept once the stream is back', async () => {
    const jsm = await jetstreamManager(infra.nc);
    const stream = infra.ns.stream(deadLetterStream);
    let calls = 0;
    await consume('copy_fails', async () => {
      calls += 1;
      throw new Error('still failing');
    }, 2);
    // The dead-letter stream gone (a NATS node lost, a stream being moved): copies fail with no responders.
    const saved = (await jsm.streams.info(stream)).config;
    await jsm.streams.delete(stream);
    try {
      await publish(envelope('plan_copy_fails'));
      // Beyond maxDeliver: the message came back after its copy failed instead of being dropped.
      await until(async () => (calls >= 3 ? true : undefined), 'a delivery after the failed copy', 30_000);
    } finally {
      await jsm.streams.add(saved);
    }
    await until(async () => ((await countDeadLetters(infra.nc, infra.ns, 'copy_fails')) === 1 ? true : undefined), 'the dead letter', 30_000);
  });

  it('when NATS_STREAM_REPLICAS is set, then the dead-letter stream is asked for those replicas like every other stream', async () => {
    const ns = { ...infra.ns, stream: (name: string) => `${infra.ns.stream(name)}_R`, subject: (s: string) => infra.ns.subject(`r.${s}`) };
    // A single server refuses three replicas: the server was asked.
    await expect(ensureDeadLetterStream(infra.nc, ns, undefined, { replicas: 3 })).rejects.toThrow(/replica/i);
    await ensureDeadLetterStream(infra.nc, ns, undefined, { replicas: 1 });
    const jsm = await jetstreamManager(infra.nc);
    expect((await jsm.streams.info(ns.stream(deadLetterStream))).config.num_replicas).toBe(1);
    await jsm.streams.delete(ns.stream(deadLetterStream));
  });
});

describe('consumer settings', () => {
  it('when the durable exists with settings ours cannot be applied to, then startConsumer fails instead of running with the old ones', async () => {
    const durable = infra.ns.durable('stubborn');
    // A backoff of three steps needs max_deliver above 3: JetStream refuses our update to 2.
    await (await jetstreamManager(infra.nc)).consumers.add(infra.ns.stream('CATALOG'), {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      filter_subject: infra.ns.subject(type),
      max_deliver: 10,
      backoff: [nanos(100), nanos(200), nanos(300)],
    });
    await expect(consume('stubborn', async () => {}, 2)).rejects.toThrow();
  });
});
