import { context, metrics, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AckPolicy, DeliverPolicy, jetstream, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { withTransaction, type Pool, type PoolClient } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { events, type EventEnvelope, type EventType, type StreamName } from './contracts.js';
import { deadLetter, ensureDeadLetterStream, type DeadLetterReason } from './deadLetter.js';
import { isJetStreamApiError } from './jsErrors.js';
import { ensureStreams } from './nats.js';
import type { Namespace } from './namespace.js';
import { retryDelayMs, type RetryPolicy } from './retry.js';

/** Thrown by a handler for an event it can never process; the message is terminated, not retried. */
export class PermanentEventError extends Error {
  override name = 'PermanentEventError';
}

export interface ConsumerSpec<T extends EventType> {
  /** Durable consumer name, without the namespace. */
  durable: string;
  type: T;
  /** How long an unacknowledged delivery waits before JetStream redelivers it. */
  ackWaitMs: number;
  /** Deliveries before the message is given up on and moved to the dead-letter stream. */
  maxDeliver: number;
  /** The backoff between deliveries after a failure (exponential, capped, with jitter: ./retry.ts). */
  retry?: RetryPolicy;
  /**
   * @deprecated Declare `retry` instead: one formula for every consumer.
   * Still honoured (with `retry`'s jitter on top) for consumers written before it.
   */
  retryDelayMs?: (deliveryCount: number) => number;
  /**
   * Messages handled at once (default 1: in stream order). Above 1, order
   * between messages is not kept: only for handlers whose events are
   * independent of each other (one supplier call per order).
   */
  concurrency?: number;
  /**
   * Keep stream order through failures (one message at a time): a failed
   * message is retried in place, after the same backoff, instead of being
   * sent back while the ones behind it go ahead. For events whose order is
   * promised onwards (a partner's webhooks, §9): a nak would let
   * `provision.provisioned` overtake a `payment.paid` whose handling failed
   * (found by test/e2e/faults-infrastructure.test.ts, Postgres stopped).
   * The price is head-of-line blocking, which is the point.
   */
  ordered?: boolean;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

/** The backoff of a consumer that declares none: 1 s, 2 s, 4 s … up to a minute, 20 % jitter. */
export const defaultRetry: RetryPolicy = { firstMs: 1_000, maxMs: 60_000 };

const meter = metrics.getMeter('@esim/events');
const processed = meter.createCounter('events_consumed_total', { description: 'Events consumed, by consumer and outcome' });
const redeliveries = meter.createCounter('events_redelivered_total', { description: 'Deliveries that were redeliveries' });
// From the transaction that wrote the event (occurredAt) to its handler's success:
// outbox relay, JetStream and the consumer together (a revocation's reach, say).
const eventLag = meter.createHistogram('events_lag_ms', {
  unit: 'ms',
  description: 'From the event occurring to its handling, by consumer',
  advice: { explicitBucketBoundaries: [10, 25, 50, 100, 250, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 300_000, 3_600_000] },
});
const tracer = trace.getTracer('@esim/events');

/**
 * JetStream's own view of each durable this process consumes, polled: what
 * waits to be delivered (num_pending) and what was delivered but not acked
 * (num_ack_pending). Every replica reports the same durable, so dashboards
 * take the max per consumer.
 */
const lagPollMs = 15_000;
const consumerLag = new Map<string, { pending: number; ackPending: number }>();
const pendingGauge = meter.createObservableGauge('jetstream_consumer_pending_messages', { description: 'Messages not yet delivered to the durable consumer' });
const ackPendingGauge = meter.createObservableGauge('jetstream_consumer_ack_pending_messages', { description: 'Messages delivered to the durable consumer and not yet acknowledged' });
meter.addBatchObservableCallback(
  (result) => {
    for (const [consumer, lag] of consumerLag) {
      result.observe(pendingGauge, lag.pending, { consumer });
      result.observe(ackPendingGauge, lag.ackPending, { consumer });
    }
  },
  [pendingGauge, ackPendingGauge],
);

/**
 * Wraps a handler so it runs inside a Postgres transaction that also records
 * the event id in `<schema>.processed_events`. The effect and the record
 * commit together and the ack follows the commit, so a redelivered event
 * (crash before ack, ack lost) is skipped, never applied twice.
 */
export function exactlyOnce<T extends EventType>(
  pool: Pool,
  schema: string,
  consumer: string,
  handle: (event: EventEnvelope<T>, db: PoolClient) => Promise<void>,
): (event: EventEnvelope<T>) => Promise<void> {
  return (event) =>
    withTransaction(pool, async (db) => {
      const claimed = await db.query(`INSERT INTO ${schema}.processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
        consumer,
        event.id,
      ]);
      if (claimed.rowCount === 0) return;
      await handle(event, db);
    });
}

/** Another delivery of the same event is being handled (an ack wait expired meanwhile): this one is retried later. */
export class EventInProgressError extends Error {
  override name = 'EventInProgressError';
}

/**
 * `exactlyOnce` for a handler whose work is a call to another system (a
 * supplier over the network). `call` runs outside any transaction; `record`
 * then writes its effect in a short transaction that also records the event
 * id, and the ack follows that commit. No transaction stays open while the
 * network answers: an open transaction holds back the horizon below which
 * Postgres may forget dead rows, so every outbox and claim scan in the
 * database re-reads the entries that died meanwhile (docs/benchmarks.md,
 * "Flat with history").
 * The guarantee: the effect commits at most once per event id (a second
 * `record` finds the id taken and writes nothing), and an event already
 * recorded is skipped before calling. One delivery of an event calls at a
 * time: a session advisory lock on the event id (held on an idle
 * connection, not in a transaction) turns a second delivery arriving
 * meanwhile into a retry. `call` may still run again after a crash between
 * it and the commit, so it must be idempotent where it lands, as a supplier
 * call keyed by the order id is.
 */
export function exactlyOnceAroundCall<T extends EventType, R>(
  pool: Pool,
  schema: string,
  consumer: string,
  steps: { call: (event: EventEnvelope<T>) => Promise<R>; record: (event: EventEnvelope<T>, result: R, db: PoolClient) => Promise<void> },
): (event: EventEnvelope<T>) => Promise<void> {
  return async (event) => {
    const lockKey = `${schema}.processed_events:${consumer}:${event.id}`;
    const client = await pool.connect();
    // A checked-out client has no listener of the pool's: a session ended under us fails this delivery, not the process.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [lockKey]);
      if (rows[0]?.ok !== true) throw new EventInProgressError(`event ${event.id} is being handled by another delivery`);
      try {
        const seen = await client.query(`SELECT 1 FROM ${schema}.processed_events WHERE consumer = $1 AND event_id = $2`, [consumer, event.id]);
        if ((seen.rowCount ?? 0) > 0) return;
        const result = await steps.call(event);
        await withTransaction(pool, async (db) => {
          const claimed = await db.query(`INSERT INTO ${schema}.processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [consumer, event.id]);
          if (claimed.rowCount === 0) return;
          await steps.record(event, result, db);
        });
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]).catch((error: Error) => {
          // The lock goes with the session: a connection that cannot say unlock is not handed to anyone else.
          broken ??= error;
        });
      }
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  };
}

/**
 * A durable pull consumer: parses each event against its declared schema,
 * continues the publisher's trace, acks after `handle` resolves, naks with
 * the spec's retry delay when it throws, and after `maxDeliver` tries (or a
 * PermanentEventError) moves the message to the namespace's dead-letter
 * stream (./deadLetter.ts) before terminating it.
 * `handle` must be idempotent: wrap it in `exactlyOnce` unless its effect
 * already is (deleting a cache entry).
 */
export async function startConsumer<T extends EventType>(options: {
  nc: NatsConnection;
  ns: Namespace;
  logger: Logger;
  spec: ConsumerSpec<T>;
  handle: (event: EventEnvelope<T>) => Promise<void>;
  /** JetStream replicas of the stream, should this consumer be the one to create it (NATS_STREAM_REPLICAS). */
  streamReplicas?: number;
  /** How often JetStream is asked for this durable's pending counts (tests shorten it). */
  lagPollMs?: number;
}): Promise<RunningConsumer> {
  const { nc, ns, logger, spec, handle } = options;
  const declared = events[spec.type];
  const stream = ns.stream(declared.stream as StreamName);
  const durable = ns.durable(spec.durable);
  const jsm = await ensureStreams(nc, ns, [declared.stream as StreamName], { replicas: options.streamReplicas });
  await ensureDeadLetterStream(nc, ns, jsm, { replicas: options.streamReplicas });
  const policy: RetryPolicy = spec.retry ?? defaultRetry;
  const delayFor = (attempt: number) =>
    spec.retry || !spec.retryDelayMs ? retryDelayMs(policy, attempt) : Math.round(spec.retryDelayMs(attempt) * (1 - (policy.jitter ?? 0.2) * Math.random()));
  const config = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: ns.subject(spec.type),
    ack_wait: nanos(spec.ackWaitMs),
    // JetStream never stops delivering a message by itself: the consumer counts the deliveries and gives up on
    // maxDeliver by copying the message to the dead letters and only then terminating it. A JetStream bound would
    // drop a message whose last delivery could not be copied (the dead-letter stream unreachable), kept nowhere.
    max_deliver: -1,
  };
  // Errors are told apart by JetStream's error codes. Settings that cannot be
  // applied fail the start: a consumer running with another ack wait or
  // delivery bound than declared would redeliver or give up at the wrong time.
  let exists = true;
  await jsm.consumers.info(stream, durable).catch((error: unknown) => {
    if (!isJetStreamApiError(error, 'consumerNotFound')) throw error;
    exists = false;
  });
  if (!exists) {
    await jsm.consumers.add(stream, config).catch((error: unknown) => {
      // Another replica created it between our info and add: apply ours below.
      if (!isJetStreamApiError(error, 'consumerNameInUse') && !isJetStreamApiError(error, 'consumerAlreadyExists')) throw error;
      exists = true;
    });
  }
  if (exists) await jsm.consumers.update(stream, durable, { ack_wait: config.ack_wait, max_deliver: config.max_deliver });
  const consumer = await jetstream(nc).consumers.get(stream, durable);
  // An ordered consumer handles one message at a time whatever `concurrency` says.
  const concurrency = spec.ordered ? 1 : Math.max(1, spec.concurrency ?? 1);
  let stopping = false;
  const messages: ConsumerMessages = await consumer.consume({ max_messages: Math.max(4, concurrency * 2) });

  /**
   * A message given up on is copied to the dead-letter stream first and
   * terminated only once the copy is stored. Should the copy fail three
   * times, the message is left unacknowledged and delivered again after the
   * backoff (JetStream has no delivery bound of its own, see `config`): the
   * next delivery tries the copy again, so it is never dropped.
   */
  async function giveUp(message: JsMsg, reason: DeadLetterReason, error: unknown): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await deadLetter(nc, ns, spec.durable, message, reason, error);
        message.term();
        return;
      } catch (copyError) {
        if (attempt >= 3) {
          logger.error({ err: copyError, consumer: spec.durable, subject: message.subject }, 'cannot copy a failed event to the dead letters; it will be delivered again');
          message.nak(delayFor(Math.min(message.info.deliveryCount, spec.maxDeliver)));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  async function process(message: JsMsg): Promise<void> {
    if (message.info.redelivered) redeliveries.add(1, { consumer: spec.durable });
    let envelope: EventEnvelope<T>;
    try {
      const raw = message.json<EventEnvelope<T>>();
      envelope = { ...raw, data: declared.data.parse(raw.data) as EventEnvelope<T>['data'] };
    } catch (error) {
      logger.error({ err: error, consumer: spec.durable, subject: message.subject }, 'undecodable event; moving it to the dead letters');
      processed.add(1, { consumer: spec.durable, outcome: 'rejected' });
      await giveUp(message, 'undecodable', error);
      return;
    }
    try {
      await handle(envelope);
      message.ack();
      processed.add(1, { consumer: spec.durable, outcome: 'ok' });
      const occurredAt = Date.parse(envelope.occurredAt);
      if (Number.isFinite(occurredAt)) eventLag.record(Math.max(0, Date.now() - occurredAt), { consumer: spec.durable });
    } catch (error) {
      const attempt = message.info.deliveryCount;
      if (error instanceof PermanentEventError || attempt >= spec.maxDeliver) {
        logger.error({ err: error, consumer: spec.durable, eventId: envelope.id, attempt }, 'event failed for good; moving it to the dead letters');
        processed.add(1, { consumer: spec.durable, outcome: 'failed' });
        await giveUp(message, error instanceof PermanentEventError ? 'permanent' : 'max_deliver', error);
        return;
      }
      logger.warn({ err: error, consumer: spec.durable, eventId: envelope.id, attempt }, 'event failed; will retry');
      processed.add(1, { consumer: spec.durable, outcome: 'retry' });
      if (!spec.ordered) return message.nak(delayFor(attempt));
      await holdTheLine(message, envelope, attempt);
    }
  }

  /**
   * An ordered consumer's failed message, retried here until it is handled,
   * given up on, or the consumer stops (then it is sent back at once, still
   * first in line). `working()` keeps JetStream from redelivering it meanwhile.
   */
  async function holdTheLine(message: JsMsg, envelope: EventEnvelope<T>, firstAttempt: number): Promise<void> {
    for (let attempt = firstAttempt + 1; ; attempt++) {
      const waitMs = delayFor(attempt - 1);
      for (let waited = 0; waited < waitMs && !stopping; waited += 1_000) {
        message.working();
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, waitMs - waited)));
      }
      if (stopping) return message.nak();
      try {
        await handle(envelope);
        message.ack();
        processed.add(1, { consumer: spec.durable, outcome: 'ok' });
        return;
      } catch (error) {
        if (error instanceof PermanentEventError || attempt >= spec.maxDeliver) {
          logger.error({ err: error, consumer: spec.durable, eventId: envelope.id, attempt }, 'event failed for good; moving it to the dead letters');
          processed.add(1, { consumer: spec.durable, outcome: 'failed' });
          return giveUp(message, error instanceof PermanentEventError ? 'permanent' : 'max_deliver', error);
        }
        logger.warn({ err: error, consumer: spec.durable, eventId: envelope.id, attempt }, 'event failed; retrying it in place');
        processed.add(1, { consumer: spec.durable, outcome: 'retry' });
      }
    }
  }

  function traced(message: JsMsg): Promise<void> {
    const carrier: Record<string, string> = {};
    for (const [key, values] of message.headers ?? []) if (values[0]) carrier[key] = values[0];
    const parent = propagation.extract(ROOT_CONTEXT, carrier);
    return context.with(parent, () =>
      tracer.startActiveSpan(`process ${spec.type}`, { kind: SpanKind.CONSUMER, attributes: { 'messaging.consumer.group.name': spec.durable } }, async (span) => {
        try {
          await process(message);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          logger.error({ err: error }, 'consumer loop error');
        } finally {
          span.end();
        }
      }),
    );
  }

  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    for await (const message of messages) {
      if (concurrency === 1) {
        await traced(message);
        continue;
      }
      const running: Promise<void> = traced(message).finally(() => inFlight.delete(running));
      inFlight.add(running);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  })();

  const pollLag = () =>
    jsm.consumers.info(stream, durable).then(
      (info) => consumerLag.set(spec.durable, { pending: info.num_pending, ackPending: info.num_ack_pending }),
      () => undefined, // a NATS outage shows in readiness; the last known values stay
    );
  void pollLag();
  const lagTimer = setInterval(() => void pollLag(), options.lagPollMs ?? lagPollMs);
  lagTimer.unref();

  return {
    async stop() {
      stopping = true;
      clearInterval(lagTimer);
      consumerLag.delete(spec.durable);
      await messages.close();
      await loop;
    },
  };
}
