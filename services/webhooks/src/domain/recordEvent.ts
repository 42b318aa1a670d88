import { context, propagation } from '@opentelemetry/api';
import type { EventEnvelope } from '@esim/events';
import type { Queryable } from '@esim/postgres';
import { ensurePrimaryEndpoint, findEndpoint, listEndpoints } from '../store/endpointStore.js';
import { insertEventWithDeliveries } from '../store/eventStore.js';
import { takes } from './endpoint.js';

/**
 * A partner-facing event arrived: keep it, with one delivery due now to each
 * enabled endpoint of the partner that takes its type (§9; a test aimed at
 * one endpoint goes there alone), and the
 * trace context of the span consuming it, so every attempt lands in the
 * trace of the request that caused the event. Runs in the consumer's
 * exactly-once transaction: a redelivered event is skipped before this runs,
 * and a crash before commit leaves nothing behind, so each event gets
 * exactly one delivery per endpoint. The primary endpoint (the partner's
 * webhookUrl) gets its delivery even while the partner has no URL: it ends
 * `no_endpoint`, kept for a later redelivery or recover (§9).
 */
export async function recordEvent(db: Queryable, envelope: EventEnvelope<'partner.notification'>): Promise<void> {
  const traceContext: Record<string, string> = {};
  propagation.inject(context.active(), traceContext);
  const { partnerId, type, orderId, payload } = envelope.data;
  const target = 'endpointId' in envelope.data ? envelope.data.endpointId : undefined;
  let endpointIds: string[];
  if (target) {
    const endpoint = await findEndpoint(db, target);
    endpointIds = endpoint && endpoint.partnerId === partnerId ? [endpoint.id] : [];
  } else {
    let endpoints = await listEndpoints(db, partnerId);
    // A partner's first event makes its primary endpoint's row (one read per event after that).
    if (!endpoints.some((endpoint) => endpoint.primary)) endpoints = [await ensurePrimaryEndpoint(db, partnerId), ...endpoints];
    endpointIds = endpoints.filter((endpoint) => endpoint.enabled && takes(endpoint, type)).map((endpoint) => endpoint.id);
  }
  await insertEventWithDeliveries(db, { id: envelope.id, partnerId, type, orderId, payload, createdAt: new Date(envelope.occurredAt), traceContext }, endpointIds);
}
