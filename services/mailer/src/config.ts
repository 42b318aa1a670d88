import { join } from 'node:path';
import { z } from 'zod';
import { commonEnv, loadConfig, varDir, withDevSecrets } from '@esim/config';
import { generateDataKey } from '@esim/crypto';
import { serviceEnv } from '@esim/service';

/** An empty variable (`SMTP_URL=`) means "unset", as it does in a shell or a compose file. */
const optional = <T extends z.ZodType>(inner: T) => z.preprocess((value) => (value === '' ? undefined : value), inner.optional());

const schema = z.object({
  ...serviceEnv(9093),
  DATABASE_URL: commonEnv.DATABASE_URL,
  /** `smtp://host:port` (or `smtps://user:pass@host:port`); unset: each mail becomes an .eml file under MAIL_DIR. */
  SMTP_URL: optional(z.url({ protocol: /^smtps?$/, error: 'must be smtp://host:port or smtps://host:port' })),
  MAIL_FROM: z.string().min(3).default('Partner Platform <no-reply@localhost>'),
  MAIL_DIR: z.string().min(1).default(join(varDir, 'mail')),
  /** The partner portal's address, for the links the mails carry (`…/verify-email?token=`, `…/reset-password?token=`). */
  PORTAL_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:8080/portal'),
  /** The operator console's address, named in an operator's invitation. */
  CONSOLE_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:8081/console'),
  /** The platform's name as partners see it in mail texts. */
  PLATFORM_NAME: z.string().min(1).max(100).default('Partner Platform'),
  /** Opens the secrets a mail request carries sealed; the same key as the partners service's (var/secrets in development). */
  DATA_ENCRYPTION_KEY: z.base64().refine((value) => Buffer.from(value, 'base64').length === 32, 'must be base64 of 32 bytes'),
  /**
   * How long JetStream waits for our ack before redelivering. It must exceed
   * the worst SMTP exchange (three 10 s timeouts); tests lower it so a killed
   * worker's messages come back quickly.
   */
  MAIL_ACK_WAIT_MS: z.coerce.number().int().min(5_000).max(600_000).default(60_000),
});

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, withDevSecrets(env, { DATA_ENCRYPTION_KEY: generateDataKey }));
}
