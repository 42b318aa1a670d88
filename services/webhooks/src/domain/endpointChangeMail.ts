import { enqueueEvent } from '@esim/events';
import { livemodeOf } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { Endpoint } from './endpoint.js';
import type { AuditContext } from './partnersPort.js';

/** What happened to the endpoint, as the mail names it. */
export type EndpointChange = 'created' | 'updated' | 'deleted' | 'secret_rotated';

/**
 * #24: a webhook endpoint changed, by the partner or by an operator, is
 * e-mailed to the partner at once: the stream carries activation codes and
 * customers' contact details, so a partner must learn of a receiver (or a
 * secret) it did not set. The request is queued in the caller's transaction,
 * so the change and its notice commit together or not at all. No secret
 * travels: a rotation says only that it happened. Without an address (a
 * partner the partners service no longer knows) nothing is queued.
 */
export async function endpointChangeMail(
  db: Queryable,
  email: string | undefined,
  notice: { change: EndpointChange; endpoint: Pick<Endpoint, 'id' | 'partnerId'>; url: string; audit: AuditContext | undefined },
): Promise<void> {
  if (!email) return;
  await enqueueEvent(db, 'webhooks', 'mail.requested', {
    to: email,
    template: 'webhook_endpoint_changed',
    values: {
      change: notice.change,
      endpointId: notice.endpoint.id,
      url: notice.url,
      mode: livemodeOf(notice.endpoint.partnerId) ? 'live' : 'test',
      changedBy: notice.audit ? 'an operator' : 'you, from the partner portal',
    },
    sealedValues: {},
  });
}
