import { context, metrics, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { AckPolicy, DeliverPolicy, jetstream, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '@esim/telemetry';
import { WaitingBatches } from './batches.js';
import { events, type EventEnvelope, type EventType, type StreamName } from './contracts.js';
import { deadLetter, ensureDeadLetterStream, type DeadLetterReason } from './deadLetter.js';
import type { BatchApplier } from './exactlyOnce.js';
import { isJetStreamApiError } from './jsErrors.js';
import { laneDurable, laneSubject, type Lane } from './lanes.js';
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
  /**
   * Up to this many waiting messages applied in one transaction (default 1:
   * a transaction each), in stream order, then acknowledged together; needs
   * a transactional handler (`applyBatch`, from `exactlyOnceBatch`). Batches
   * are never waited for: they form when messages arrive faster than they
   * are applied. Should a batch fail, it is rolled back and its messages are
   * handled one at a time as without it (retry, `ordered`, dead letters), so
   * one bad event neither blocks nor duplicates its neighbours. One batch at
   * a time, so `concurrency` must stay 1: per-key order then holds without
   * knowing the keys, and concurrent batches locking the same rows in
   * different orders cannot deadlock each other. At most `maxBatch`.
   */
  batch?: number;
  /**
   * The lane consumed (./lanes.ts; default live): in the test lane the
   * durable is `<durable>_test` and reads the type's `.test` subject. Its
   * metrics and dead letters carry that name, so each lane is seen apart.
   */
  lane?: Lane;
}

/** The largest batch a consumer may declare: its messages are delivered and unacknowledged together, within one ack wait. */
export const maxBatch = 256;

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
const batches = meter.createCounter('events_batches_total', { description: 'Batch transactions, by consumer and outcome (committed, or fell_back to one event at a time)' });
const batchedMessages = meter.createHistogram('events_batch_size', {
  description: 'Events applied per committed batch transaction, by consumer',
  advice: { explicitBucketBoundaries: [2, 4, 8, 16, 32, 64, 128, 256] },
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
  /** Applies a batch in one transaction (`exactlyOnceBatch` of the same handler); used when `spec.batch` > 1. */
  applyBatch?: BatchApplier<T>;
  /** JetStream replicas of the stream, should this consumer be the one to create it (NATS_STREAM_REPLICAS). */
  streamReplicas?: number;
  /** How often JetStream is asked for this durable's pending counts (tests shorten it). */
  lagPollMs?: number;
}): Promise<RunningConsumer> {
  const { nc, ns, logger, handle, applyBatch } = options;
  const lane = options.spec.lane ?? 'live';
  // From here on the spec's durable is the lane's: logs, metrics and dead letters name it.
  const spec = { ...options.spec, durable: laneDurable(options.spec.durable, lane) };
  const batchSize = spec.batch ?? 1;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > maxBatch) throw new RangeError(`${spec.durable}: batch must be an integer from 1 to ${maxBatch}`);
  if (batchSize > 1 && !applyBatch) throw new TypeError(`${spec.durable}: a batch consumer needs applyBatch (its handler in one transaction)`);
  if (batchSize > 1 && (spec.concurrency ?? 1) > 1) throw new TypeError(`${spec.durable}: a batch consumer applies one batch at a time; concurrency must be 1`);
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
    filter_subject: ns.subject(laneSubject(spec.type, lane)),
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
  const messages: ConsumerMessages = await consumer.consume({ max_messages: Math.max(4, concurrency * 2, batchSize) });

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

  /** The message's envelope, its data checked against the event's schema; the error when it is not one. */
  function decode(message: JsMsg): { envelope: EventEnvelope<T> } | { error: unknown } {
    try {
      const raw = message.json<EventEnvelope<T>>();
      return { envelope: { ...raw, data: declared.data.parse(raw.data) as EventEnvelope<T>['data'] } };
    } catch (error) {
      return { error };
    }
  }

  function applied(message: JsMsg, envelope: EventEnvelope<T>): void {
    message.ack();
    processed.add(1, { consumer: spec.durable, outcome: 'ok' });
    const occurredAt = Date.parse(envelope.occurredAt);
    if (Number.isFinite(occurredAt)) eventLag.record(Math.max(0, Date.now() - occurredAt), { consumer: spec.durable });
  }

  async function process(message: JsMsg): Promise<void> {
    if (message.info.redelivered) redeliveries.add(1, { consumer: spec.durable });
    const decoded = decode(message);
    if ('error' in decoded) {
      logger.error({ err: decoded.error, consumer: spec.durable, subject: message.subject }, 'undecodable event; moving it to the dead letters');
      processed.add(1, { consumer: spec.durable, outcome: 'rejected' });
      await giveUp(message, 'undecodable', decoded.error);
      return;
    }
    await settle(message, decoded.envelope);
  }

  /** Handles one decoded message: ack on success; on failure retry (nak, or in place when ordered) or give up. */
  async function settle(message: JsMsg, envelope: EventEnvelope<T>): Promise<void> {
    try {
      await handle(envelope);
      applied(message, envelope);
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
        applied(message, envelope);
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

  /** The context a message's work runs in: a consumer span continuing its publisher's trace (from its headers). */
  function spanFor(message: JsMsg): { span: Span; context: Context } {
    const carrier: Record<string, string> = {};
    for (const [key, values] of message.headers ?? []) if (values[0]) carrier[key] = values[0];
    const parent = propagation.extract(ROOT_CONTEXT, carrier);
    const span = tracer.startSpan(`process ${spec.type}`, { kind: SpanKind.CONSUMER, attributes: { 'messaging.consumer.group.name': spec.durable } }, parent);
    return { span, context: trace.setSpan(parent, span) };
  }

  async function inSpan(traced: { span: Span; context: Context }, work: () => Promise<void>): Promise<void> {
    try {
      await context.with(traced.context, work);
    } catch (error) {
      traced.span.setStatus({ code: SpanStatusCode.ERROR });
      logger.error({ err: error }, 'consumer loop error');
    } finally {
      traced.span.end();
    }
  }

  const traced = (message: JsMsg): Promise<void> => inSpan(spanFor(message), () => process(message));

  /**
   * A batch in one transaction, each message in its own span; acked once it
   * committed. A crash between the commit and the acks redelivers messages
   * whose processed_events rows are committed: skipped. Should the batch
   * fail (one event's handler threw, a deadlock, the database gone), it was
   * rolled back whole and its messages go through `settle` one at a time, in
   * order, exactly as a consumer without batches would handle them.
   */
  async function processBatch(batch: JsMsg[]): Promise<void> {
    const decoded = batch.map(decode);
    if (batch.length === 1 || !applyBatch || decoded.some((d) => 'error' in d)) {
      for (const message of batch) await traced(message);
      return;
    }
    const envelopes = decoded.map((d) => (d as { envelope: EventEnvelope<T> }).envelope);
    const spans = batch.map(spanFor);
    for (const message of batch) if (message.info.redelivered) redeliveries.add(1, { consumer: spec.durable });
    let failure: unknown;
    try {
      await applyBatch(envelopes, (index, work) => context.with(spans[index]!.context, work));
    } catch (error) {
      failure = error;
    }
    if (failure === undefined) {
      // Committed: an ack that cannot be sent (the connection closing) leaves its message to be redelivered and skipped.
      for (const [index, message] of batch.entries()) await inSpan(spans[index]!, async () => applied(message, envelopes[index]!));
      batches.add(1, { consumer: spec.durable, outcome: 'committed' });
      batchedMessages.record(batch.length, { consumer: spec.durable });
      return;
    }
    logger.warn({ err: failure, consumer: spec.durable, messages: batch.length }, 'batch failed and was rolled back; handling its events one at a time');
    batches.add(1, { consumer: spec.durable, outcome: 'fell_back' });
    for (const [index, message] of batch.entries()) await inSpan(spans[index]!, () => settle(message, envelopes[index]!));
  }

  async function oneAtATime(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
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
  }

  async function inBatches(): Promise<void> {
    const waiting = new WaitingBatches(messages, batchSize);
    for (let batch = await waiting.take(); batch; batch = await waiting.take()) {
      // Stopping: what was not started is left unacknowledged, as a consumer without batches leaves what
      // its client buffered: JetStream redelivers it after the ack wait in stream order (nak'd, it came back
      // out of order: packages/events/test/batchConsumer.test.ts), behind an ordered consumer's held message.
      if (!stopping) await processBatch(batch);
    }
  }

  const loop = batchSize > 1 ? inBatches() : oneAtATime();

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
