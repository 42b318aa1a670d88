import { metrics } from '@opentelemetry/api';
import { DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager, type JsMsg, type MsgRequest, type NextMsgRequest } from '@nats-io/jetstream';
import { headers as natsHeaders, nanos, type NatsConnection } from '@nats-io/nats-core';
import { streams, type StreamName } from './contracts.js';
import { isJetStreamApiError } from './jsErrors.js';
import type { Namespace } from './namespace.js';
import type { StreamOptions } from './nats.js';

/**
 * The dead-letter stream of a namespace: where a message goes when its
 * consumer gives up on it (maxDeliver exhausted, a PermanentEventError, an
 * undecodable body), instead of being terminated and kept nowhere. Each
 * copy is published to `deadletter.<durable>` with the original subject,
 * the reason and the attempts in headers, and the original body and trace
 * headers unchanged, so an operator can read it and redrive it once the
 * cause is fixed (`redriveDeadLetters`).
 */
export const deadLetterStream = 'DEAD_LETTERS';
const keepMs = 30 * 86_400_000;

export const deadLetterHeaders = {
  subject: 'Esim-Dead-Subject',
  consumer: 'Esim-Dead-Consumer',
  reason: 'Esim-Dead-Reason',
  attempts: 'Esim-Dead-Attempts',
  streamSequence: 'Esim-Dead-Stream-Seq',
} as const;

const meter = metrics.getMeter('@esim/events');
const deadLettered = meter.createCounter('events_dead_lettered_total', { description: 'Messages a consumer gave up on, kept in the dead-letter stream, by consumer and reason' });
const redriven = meter.createCounter('events_redriven_total', { description: 'Dead letters published again to their original subject' });

const ensured = new WeakMap<NatsConnection, Set<string>>();

/**
 * Creates the namespace's dead-letter stream once per connection, with the
 * replicas every other stream has (NATS_STREAM_REPLICAS): on a cluster the
 * messages that failed for good survive the loss of a node like any other.
 * Unset, an existing stream keeps its replicas; set, an existing one is
 * scaled to it.
 */
export async function ensureDeadLetterStream(nc: NatsConnection, ns: Namespace, jsm?: JetStreamManager, options: StreamOptions = {}): Promise<void> {
  const name = ns.stream(deadLetterStream);
  const key = `${name}:${options.replicas ?? ''}`;
  const done = ensured.get(nc) ?? new Set<string>();
  ensured.set(nc, done);
  if (done.has(key)) return;
  const manager = jsm ?? (await jetstreamManager(nc));
  const config = {
    name,
    subjects: [ns.subject('deadletter.>')],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_age: nanos(keepMs),
    num_replicas: options.replicas ?? 1,
  };
  try {
    await manager.streams.add(config);
  } catch (error) {
    // Created by another service or replica first: the same stream, keep it (scaled to the replicas asked for).
    if (!isJetStreamApiError(error, 'streamNameInUse')) throw error;
    if (options.replicas !== undefined) {
      const current = await manager.streams.info(name);
      if (current.config.num_replicas !== options.replicas) await manager.streams.update(name, { subjects: config.subjects, max_age: config.max_age, num_replicas: options.replicas });
    }
  }
  done.add(key);
}

export type DeadLetterReason = 'max_deliver' | 'permanent' | 'undecodable';

/** Copies `message` to the dead-letter stream; resolves once JetStream stored it (only then may the caller terminate the original). */
export async function deadLetter(nc: NatsConnection, ns: Namespace, durable: string, message: JsMsg, reason: DeadLetterReason, error: unknown): Promise<void> {
  const h = natsHeaders();
  for (const [key, values] of message.headers ?? []) if (values[0] !== undefined && !key.startsWith('Nats-')) h.set(key, values[0]);
  h.set(deadLetterHeaders.subject, message.subject);
  h.set(deadLetterHeaders.consumer, durable);
  // Header values are one line: a schema error's message spans many.
  h.set(deadLetterHeaders.reason, `${reason}: ${error instanceof Error ? error.message : String(error)}`.replace(/\s+/g, ' ').slice(0, 1_000));
  h.set(deadLetterHeaders.attempts, String(message.info.deliveryCount));
  h.set(deadLetterHeaders.streamSequence, String(message.info.streamSequence));
  // One copy per (stream message, consumer), however often this runs for it.
  await jetstream(nc).publish(ns.subject(`deadletter.${durable}`), message.data, {
    headers: h,
    msgID: `${message.info.stream}:${message.info.streamSequence}:${durable}`,
    timeout: 5_000,
  });
  deadLettered.add(1, { consumer: durable, reason });
}

/**
 * Publishes the dead letters of `durable` (without the namespace) again to
 * their original subjects, oldest first, and removes each from the
 * dead-letter stream once JetStream stored the copy. Only the letters stored
 * when it starts: a letter given up on again during the redrive waits for
 * the next one. Every consumer of that subject sees it again: consumers are
 * idempotent (exactlyOnce skips an event id it applied), so only the one
 * that had failed acts on it.
 * Returns how many were redriven.
 */
export async function redriveDeadLetters(options: { nc: NatsConnection; ns: Namespace; durable: string; limit?: number }): Promise<number> {
  const { nc, ns } = options;
  const limit = options.limit ?? 1_000;
  const stream = ns.stream(deadLetterStream);
  await ensureDeadLetterStream(nc, ns);
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  // Only the letters stored before the redrive began: one its consumer gives up on again (the cause is not
  // fixed, an undecodable body) lands behind this mark, and redriving it in turn would loop until the limit.
  const subject = ns.subject(`deadletter.${options.durable}`);
  const { state } = await jsm.streams.info(stream, { subjects_filter: subject });
  const lastSeq = state.last_seq;
  if (Object.values(state.subjects ?? {}).every((n) => n === 0)) return 0;
  const reader = await js.consumers.get(stream, { filter_subjects: subject, deliver_policy: DeliverPolicy.All });
  let count = 0;
  let done = false;
  try {
    while (count < limit && !done) {
      const batch = await reader.fetch({ max_messages: Math.min(100, limit - count), expires: 1_000 });
      let seen = 0;
      for await (const letter of batch) {
        seen += 1;
        if (letter.seq > lastSeq) {
          done = true;
          break;
        }
        const original = letter.headers?.get(deadLetterHeaders.subject);
        if (!original) continue;
        const h = natsHeaders();
        for (const [key, values] of letter.headers ?? []) if (values[0] !== undefined && !key.startsWith('Esim-Dead-') && !key.startsWith('Nats-')) h.set(key, values[0]);
        // A fresh id: the original's Nats-Msg-Id may still be inside the duplicate window.
        await js.publish(original, letter.data, { headers: h, msgID: `redrive:${stream}:${letter.seq}`, timeout: 5_000 });
        await jsm.streams.deleteMessage(stream, letter.seq, false);
        redriven.add(1, { consumer: options.durable });
        count += 1;
        // None left behind this one: done now rather than after the fetch's expiry.
        if (letter.info.pending === 0) done = true;
        if (count >= limit || done) break;
      }
      if (seen === 0) break;
    }
  } finally {
    await reader.delete().catch(() => undefined);
  }
  return count;
}

/** How many dead letters `durable` has waiting. */
export async function countDeadLetters(nc: NatsConnection, ns: Namespace, durable: string): Promise<number> {
  await ensureDeadLetterStream(nc, ns);
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(ns.stream(deadLetterStream), { subjects_filter: ns.subject(`deadletter.${durable}`) });
  return Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
}

/** A dead letter as an operator reads it: where it came from and why, never its body (events carry e-mails, activation codes, sealed secrets). */
export interface DeadLetterSummary {
  /** Its sequence in the dead-letter stream. */
  sequence: number;
  consumer: string;
  /** The subject it was consumed from, with the namespace (`esim.orders.order.paid`). */
  subject: string;
  reason: string;
  attempts: number;
  /** Its sequence in its original stream. */
  originalSequence: number | null;
  /** The envelope's id and type when the body is an event envelope; null for a body that is not. */
  eventId: string | null;
  eventType: string | null;
  deadLetteredAt: string;
}

const reasonShownMax = 500;

/** What `describeDeadLetter` reads of a stored dead letter. */
export interface StoredDeadLetter {
  seq: number;
  subject: string;
  time: Date;
  header: { get(key: string): string };
  data: Uint8Array;
}

const wholeNumber = (text: string): number | null => (/^[0-9]{1,15}$/.test(text) ? Number(text) : null);

/** The envelope's id and type only: nothing else of the body leaves this function. */
function envelopeIdentity(data: Uint8Array): { eventId: string | null; eventType: string | null } {
  try {
    const body: unknown = JSON.parse(new TextDecoder().decode(data));
    if (typeof body !== 'object' || body === null) return { eventId: null, eventType: null };
    const { id, type } = body as { id?: unknown; type?: unknown };
    const text = (value: unknown) => (typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : null);
    return { eventId: text(id), eventType: text(type) };
  } catch {
    return { eventId: null, eventType: null };
  }
}

/** Maps a stored dead letter to its summary; the consumer falls back to the subject's last token (`deadletter.<durable>`). */
export function describeDeadLetter(letter: StoredDeadLetter): DeadLetterSummary {
  const h = (key: string) => letter.header.get(key) ?? '';
  return {
    sequence: letter.seq,
    consumer: h(deadLetterHeaders.consumer) || (letter.subject.split('.').at(-1) ?? ''),
    subject: h(deadLetterHeaders.subject),
    reason: h(deadLetterHeaders.reason).slice(0, reasonShownMax),
    attempts: wholeNumber(h(deadLetterHeaders.attempts)) ?? 0,
    originalSequence: wholeNumber(h(deadLetterHeaders.streamSequence)),
    ...envelopeIdentity(letter.data),
    deadLetteredAt: letter.time.toISOString(),
  };
}

/**
 * One page of the namespace's dead letters (of `durable`, or of every
 * consumer), oldest first as a redrive replays them. Read with direct
 * message gets, no consumer: each step asks for the next stored sequence on
 * the subject, so the cost is the page's depth, bounded by the stream's
 * 30 days.
 */
export async function listDeadLetters(options: { nc: NatsConnection; ns: Namespace; durable?: string; offset: number; limit: number }): Promise<{ letters: DeadLetterSummary[]; total: number }> {
  const { nc, ns, offset, limit } = options;
  await ensureDeadLetterStream(nc, ns);
  const jsm = await jetstreamManager(nc);
  const stream = ns.stream(deadLetterStream);
  const subject = ns.subject(`deadletter.${options.durable ?? '>'}`);
  const info = await jsm.streams.info(stream, options.durable === undefined ? undefined : { subjects_filter: subject });
  const total = options.durable === undefined ? info.state.messages : Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
  const letters: DeadLetterSummary[] = [];
  if (offset >= total) return { letters, total };
  // STREAM.MSG.GET takes next_by_subj (nats-server 2.9 and later); the client types it for direct gets only.
  const next = (seq: number) => ({ seq, next_by_subj: subject }) as NextMsgRequest as MsgRequest;
  let seq = info.state.first_seq;
  for (let index = 0; index < offset + limit; index++) {
    const stored = await jsm.streams.getMessage(stream, next(seq));
    if (!stored) break;
    if (index >= offset) letters.push(describeDeadLetter(stored));
    seq = stored.seq + 1;
  }
  return { letters, total };
}

/**
 * Whether `durable` (without the namespace) names a consumer of this
 * platform: a durable on one of its streams, or one with dead letters
 * waiting (a consumer since removed can still have its letters redriven).
 */
export async function isKnownConsumer(nc: NatsConnection, ns: Namespace, durable: string): Promise<boolean> {
  const jsm = await jetstreamManager(nc);
  for (const name of Object.keys(streams) as StreamName[]) {
    try {
      await jsm.consumers.info(ns.stream(name), ns.durable(durable));
      return true;
    } catch (error) {
      if (!isJetStreamApiError(error, 'consumerNotFound') && !isJetStreamApiError(error, 'streamNotFound')) throw error;
    }
  }
  return (await countDeadLetters(nc, ns, durable)) > 0;
}
