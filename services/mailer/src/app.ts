import { fileURLToPath } from 'node:url';
import { parseDataKey } from '@esim/crypto';
import { connectNats, exactlyOnce, namespace, startConsumer } from '@esim/events';
import { createPool, migrate } from '@esim/postgres';
import { startHealthServer, type ShutdownStep } from '@esim/runtime';
import type { Logger } from '@esim/telemetry';
import type { Config } from './config.js';
import { deliverMail } from './domain/deliverMail.js';
import { createMailTransport } from './transport.js';

export const schema = 'mailer';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** 2 s, 4 s, 8 s … capped at 5 min: with maxDeliver 20, an SMTP outage of about an hour loses no mail. */
const retryDelayMs = (deliveryCount: number) => Math.min(2_000 * 2 ** (deliveryCount - 1), 300_000);

export interface RunningMailer {
  healthPort: number;
  transport: 'smtp' | 'file';
  shutdownSteps: ShutdownStep[];
}

/** Wires the mailer: migrations, the `mail.requested` consumer, the transport, health. */
export async function startMailer(config: Config, logger: Logger): Promise<RunningMailer> {
  await migrate({ connectionString: config.DATABASE_URL, schema, dir: migrationsDir });
  // The consumer handles one message at a time, holding one connection for the send.
  const pool = createPool(config.DATABASE_URL, { applicationName: 'mailer', max: 4 });
  const nc = await connectNats(config.NATS_URL, 'mailer');
  const ns = namespace(config.PLATFORM_NAMESPACE);
  const transport = createMailTransport(config);

  const consumer = await startConsumer({
    nc,
    ns,
    logger,
    spec: { durable: 'mailer', type: 'mail.requested', ackWaitMs: config.MAIL_ACK_WAIT_MS, maxDeliver: 20, retryDelayMs },
    handle: exactlyOnce(
      pool,
      schema,
      'mailer',
      deliverMail({ dataKey: parseDataKey(config.DATA_ENCRYPTION_KEY), transport, from: config.MAIL_FROM, platformName: config.PLATFORM_NAME, logger }),
    ),
  });
  // No SMTP check here: an SMTP outage must not take the worker out of
  // service; its sends fail and are retried with backoff instead.
  const health = await startHealthServer({
    port: config.HEALTH_PORT,
    checks: [
      { name: 'postgres', check: () => pool.query('SELECT 1') },
      { name: 'nats', check: () => nc.flush() },
    ],
  });

  return {
    healthPort: health.port,
    transport: transport.kind,
    shutdownSteps: [
      { name: 'readiness', run: () => health.markShuttingDown() },
      // Waits for the mail being sent to commit (or fail), so a clean stop never resends.
      { name: 'mail consumer', run: () => consumer.stop() },
      { name: 'nats', run: () => nc.drain() },
      { name: 'transport', run: () => transport.close() },
      { name: 'postgres', run: () => pool.end() },
      { name: 'health', run: () => health.close() },
    ],
  };
}
