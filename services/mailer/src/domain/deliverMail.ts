import type { EventEnvelope } from '@esim/events';
import type { PoolClient } from '@esim/postgres';
import { maskEmail, metrics, type Logger } from '@esim/telemetry';
import { recordSentMessage } from '../store/sentMessages.js';
import type { MailTransport } from '../transport.js';
import { MissingTemplateValueError, renderMail } from './templates.js';

const sent = metrics.getMeter('mailer').createCounter('mail_sent_total', { description: 'Mails handed to the transport, by template and outcome' });

export interface DeliverMailDeps {
  dataKey: Buffer;
  transport: MailTransport;
  from: string;
  platformName: string;
  /** Base URLs of the portal and console, for the links the mails carry. */
  urls?: { portalUrl: string; consoleUrl: string };
  logger: Logger;
}

/**
 * Sends one `mail.requested` event. It runs inside `exactlyOnce`'s
 * transaction, so the send happens between the claim of the event id and the
 * commit, and the JetStream ack follows the commit:
 * - a send that fails rolls back the claim and the event is retried;
 * - a crash before the SMTP server's 250 leaves nothing committed and the
 *   server accepted nothing, so the redelivery sends the mail once;
 * - a crash in the few milliseconds between the 250 and our commit makes the
 *   redelivery send it again. That window is why delivery is at least once,
 *   not exactly once; the stable Message-ID lets a receiver spot the resend.
 * A concurrent redelivery on another replica blocks on the uncommitted claim
 * (same primary key) and then skips, so replicas never send in parallel.
 */
export function deliverMail(deps: DeliverMailDeps): (event: EventEnvelope<'mail.requested'>, db: PoolClient) => Promise<void> {
  return async (event, db) => {
    const { to, template } = event.data;
    const log = { eventId: event.id, template, to: maskEmail(to) };
    let rendered;
    try {
      rendered = renderMail(event.data, deps.dataKey, deps.platformName, deps.urls);
    } catch (error) {
      if (error instanceof MissingTemplateValueError) sent.add(1, { template, outcome: 'rejected' });
      throw error;
    }
    let location: string;
    try {
      ({ location } = await deps.transport.send({ eventId: event.id, from: deps.from, to, ...rendered, messageId: `<${event.id}@esim.local>` }));
    } catch (error) {
      // The consumer logs the error and naks with backoff; nodemailer errors carry the SMTP reply, never the body.
      sent.add(1, { template, outcome: 'failed' });
      throw error;
    }
    await recordSentMessage(db, { eventId: event.id, recipientMasked: log.to, template, transport: deps.transport.kind });
    sent.add(1, { template, outcome: 'sent' });
    deps.logger.info({ ...log, transport: deps.transport.kind, subject: rendered.subject, location }, 'mail sent');
  };
}
