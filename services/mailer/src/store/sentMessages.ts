import type { Queryable } from '@esim/postgres';

export interface SentMessage {
  eventId: string;
  /** Already masked by the caller: this table never holds a full address, a body or a secret. */
  recipientMasked: string;
  template: string;
  transport: 'smtp' | 'file';
}

/** Written in the consumer's transaction, beside the processed-event record. */
export async function recordSentMessage(db: Queryable, message: SentMessage): Promise<void> {
  await db.query('INSERT INTO mailer.sent_messages (event_id, recipient_masked, template, transport) VALUES ($1, $2, $3, $4)', [
    message.eventId,
    message.recipientMasked,
    message.template,
    message.transport,
  ]);
}
