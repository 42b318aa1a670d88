import { mailRecord, seal } from '@esim/crypto';
import { enqueueEvent, type EventData } from '@esim/events';
import { newId } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import { recordAuditEntry } from '../store/auditStore.js';
import type { AuditDetails } from './auditEntry.js';
import { schema } from './deps.js';
import type { Actor } from './partner.js';

type MailTemplate = EventData<'mail.requested'>['template'];

/**
 * Queues an e-mail in the caller's transaction. Secrets travel sealed under
 * the data key, bound to the recipient (associated data): the outbox, the
 * stream and the mailer's logs never see them, and a sealed value moved onto
 * another request does not open.
 */
export function requestMail(
  db: Queryable,
  dataKey: Buffer,
  mail: { to: string; template: MailTemplate; values: Record<string, string>; secrets?: Record<string, string> },
): Promise<string> {
  const sealedValues = Object.fromEntries(Object.entries(mail.secrets ?? {}).map(([name, value]) => [name, seal(dataKey, value, mailRecord(mail.to))]));
  return enqueueEvent(db, schema, 'mail.requested', { to: mail.to, template: mail.template, values: mail.values, sealedValues });
}

/** Writes the operator's action to the audit log in the caller's transaction. */
export function audit(db: Queryable, actor: Actor, action: string, target: string, details: AuditDetails = {}): Promise<void> {
  return recordAuditEntry(db, {
    id: newId('aud'),
    action,
    target,
    operator: actor.operator,
    requestId: actor.requestId,
    // The X-Operator header rides along as a note; the actor is the credential's.
    details: actor.note ? { ...details, note: actor.note } : details,
    occurredAt: new Date().toISOString(),
  });
}

/** Tells the gateway to drop its cached credentials for these keys. */
export async function credentialsChanged(db: Queryable, partnerId: string, prefixes: string[]): Promise<void> {
  if (prefixes.length === 0) return;
  await enqueueEvent(db, schema, 'partners.credentials.changed', { partnerId, prefixes });
}

/** Tells webhook senders to drop their cached endpoint of this partner (its URL or signing secret changed). */
export async function webhookEndpointChanged(db: Queryable, partnerId: string): Promise<void> {
  await enqueueEvent(db, schema, 'partners.webhook_endpoint.changed', { partnerId });
}
