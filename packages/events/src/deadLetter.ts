import { metrics } from '@opentelemetry/api';
import { DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, nanos, type NatsConnection } from '@nats-io/nats-core';
import { isJetStreamApiError } from './jsErrors.js';
import type { Namespace } from './namespace.js';

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

/** Creates the namespace's dead-letter stream once per connection (an existing one is left as it is). */
export async function ensureDeadLetterStream(nc: NatsConnection, ns: Namespace, jsm?: JetStreamManager): Promise<void> {
  const name = ns.stream(deadLetterStream);
  const done = ensured.get(nc) ?? new Set<string>();
  ensured.set(nc, done);
  if (done.has(name)) return;
  const manager = jsm ?? (await jetstreamManager(nc));
  try {
    await manager.streams.add({
      name,
      subjects: [ns.subject('deadletter.>')],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      max_age: nanos(keepMs),
    });
  } catch (error) {
    // Created by another service or replica first: the same stream, keep it.
    if (!isJetStreamApiError(error, 'streamNameInUse')) throw error;
  }
  done.add(name);
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
 * dead-letter stream once JetStream stored the copy. Every consumer of that
 * subject sees it again: consumers are idempotent (exactlyOnce skips an
 * event id it applied), so only the one that had failed acts on it.
 * Returns how many were redriven.
 */
export async function redriveDeadLetters(options: { nc: NatsConnection; ns: Namespace; durable: string; limit?: number }): Promise<number> {
  const { nc, ns } = options;
  const limit = options.limit ?? 1_000;
  const stream = ns.stream(deadLetterStream);
  await ensureDeadLetterStream(nc, ns);
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const reader = await js.consumers.get(stream, { filter_subjects: ns.subject(`deadletter.${options.durable}`), deliver_policy: DeliverPolicy.All });
  let count = 0;
  try {
    while (count < limit) {
      const batch = await reader.fetch({ max_messages: Math.min(100, limit - count), expires: 1_000 });
      let seen = 0;
      for await (const letter of batch) {
        seen += 1;
        const subject = letter.headers?.get(deadLetterHeaders.subject);
        if (!subject) continue;
        const h = natsHeaders();
        for (const [key, values] of letter.headers ?? []) if (values[0] !== undefined && !key.startsWith('Esim-Dead-') && !key.startsWith('Nats-')) h.set(key, values[0]);
        // A fresh id: the original's Nats-Msg-Id may still be inside the duplicate window.
        await js.publish(subject, letter.data, { headers: h, msgID: `redrive:${stream}:${letter.seq}`, timeout: 5_000 });
        await jsm.streams.deleteMessage(stream, letter.seq, false);
        redriven.add(1, { consumer: options.durable });
        count += 1;
        if (count >= limit) break;
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
