import { validationError } from '@esim/errors';
import { withTransaction } from '@esim/postgres';
import { requeueSince } from '../store/recoverStore.js';
import { eventRetentionMs } from './endpoint.js';
import { auditEndpoint, getEndpoint, type EndpointDeps } from './endpoints.js';
import type { AuditContext } from './partnersPort.js';

/** One recover queues at most this many events (30 days of a busy partner fit; a second recover picks up the rest). */
export const maxRecoveredEvents = 100_000;

/**
 * `POST …/{id}/recover {since}` (§9): every kept event since then (at most
 * 30 days back, the retention) that did not reach this endpoint is sent
 * again, in order, once: see requeueSince for the guarantee.
 */
export async function recoverEndpoint(deps: EndpointDeps, partnerId: string, id: string, sinceText: string, audit: AuditContext | undefined): Promise<number> {
  const since = sinceOf(sinceText);
  const { endpoint } = await getEndpoint(deps, partnerId, id);
  return withTransaction(deps.pool, async (db) => {
    const queued = await requeueSince(db, endpoint, since, maxRecoveredEvents);
    await auditEndpoint(db, audit, 'webhook_endpoint.recovered', id, endpoint.partnerId, { since: since.toISOString(), queued });
    return queued;
  });
}

function sinceOf(text: string): Date {
  const since = /^\d{4}-\d\d-\d\dT/.test(text) ? new Date(text) : new Date(Number.NaN);
  if (Number.isNaN(since.getTime())) throw validationError([{ path: 'since', message: 'must be an ISO 8601 date-time, e.g. 2026-11-20T00:00:00Z' }]);
  const now = Date.now();
  if (since.getTime() > now) throw validationError([{ path: 'since', message: 'must not be in the future' }]);
  if (since.getTime() < now - eventRetentionMs) throw validationError([{ path: 'since', message: 'must be within the last 30 days (events are kept 30 days)' }]);
  return since;
}
