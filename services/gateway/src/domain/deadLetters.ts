import { AppError } from '@esim/errors';
import { isKnownConsumer, listDeadLetters, publishEvent, redriveDeadLetters, type DeadLetterSummary, type Namespace, type NatsConnection } from '@esim/events';

export interface DeadLetterDeps {
  nc: NatsConnection;
  ns: Namespace;
}

/** JetStream unreachable or refusing is a dependency that is down (503, safe to retry), never a 500. */
async function overJetStream<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('UNAVAILABLE', `JetStream could not ${what}; retry.`, { cause: error });
  }
}

/** One page of the dead letters, oldest first, of one consumer or all. */
export function listDeadLetterPage(deps: DeadLetterDeps, query: { consumer?: string; page: number; limit: number }): Promise<{ letters: DeadLetterSummary[]; total: number }> {
  const { consumer, page, limit } = query;
  return overJetStream('list the dead letters', () => listDeadLetters({ ...deps, durable: consumer, offset: (page - 1) * limit, limit }));
}

/**
 * Publishes `consumer`'s dead letters again to their original subjects
 * (redriveDeadLetters: each is removed only once its copy is stored, so a
 * crash halfway leaves the rest in place and a second call finishes). An
 * unknown consumer is 404. Audited like every operator action: the entry is
 * published after the redrive with the count (no outbox: the gateway has no
 * database), under its own event id, so the partners service records it
 * once; a failed audit publish answers 503, and a retry (redriving what is
 * left, perhaps 0) records it then.
 */
export async function redriveConsumer(deps: DeadLetterDeps, consumer: string, audit: { operator: string; requestId: string; note: string }): Promise<number> {
  const known = await overJetStream('look the consumer up', () => isKnownConsumer(deps.nc, deps.ns, consumer));
  if (!known) throw new AppError('NOT_FOUND', `No consumer ${consumer} on this platform.`);
  const redriven = await overJetStream('redrive the dead letters', () => redriveDeadLetters({ ...deps, durable: consumer }));
  await overJetStream('record the audit entry', () =>
    publishEvent(deps.nc, deps.ns, 'audit.recorded', {
      action: 'dead_letters.redriven',
      target: consumer,
      ...audit,
      details: { redriven },
      occurredAt: new Date().toISOString(),
    }),
  );
  return redriven;
}
