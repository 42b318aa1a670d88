import { fileURLToPath } from 'node:url';
import { parseDataKey } from '@esim/crypto';
import { defineService, startRetention } from '@esim/service';
import { readConfig } from './config.js';
import { deliverMail } from './domain/deliverMail.js';
import { mailerRetention } from './store/retentionStore.js';
import { createMailTransport } from './transport.js';

/** 2 s, 4 s, 8 s … capped at 5 min: with maxDeliver 20, an SMTP outage of about an hour loses no mail. */
const retry = { firstMs: 2_000, maxMs: 300_000 };

/**
 * Consumes `mail.requested` and sends over SMTP or writes `.eml` files.
 * Readiness has no SMTP check: an SMTP outage must not take the worker out
 * of service; its sends fail and are retried with backoff instead.
 */
export const mailerService = defineService({
  name: 'mailer',
  config: readConfig,
  // The consumer handles one message at a time, holding one connection for the send.
  postgres: { schema: 'mailer', migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)), poolSize: 4 },
  async start({ config, logger, pool, consume, own }) {
    const transport = createMailTransport(config);
    // Stopped after the consumer, which waits for the mail being sent to commit (or fail): a clean stop never resends.
    own('transport', { stop: () => transport.close() });
    await consume(
      { durable: 'mailer', type: 'mail.requested', ackWaitMs: config.MAIL_ACK_WAIT_MS, maxDeliver: 20, retry },
      deliverMail({ dataKey: parseDataKey(config.DATA_ENCRYPTION_KEY), transport, from: config.MAIL_FROM, platformName: config.PLATFORM_NAME, urls: { portalUrl: config.PORTAL_URL, consoleUrl: config.CONSOLE_URL }, logger }),
    );
    // Contract §11: the tables that grow with traffic are pruned on their retention (docs/retention.md), hourly.
    own('retention', startRetention({ pool, logger, rules: mailerRetention, everyMs: 3_600_000 }));
    return { facts: { transport: transport.kind } };
  },
});
