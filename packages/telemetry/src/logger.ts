import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Field names that may hold a secret anywhere in a log object. pino replaces
 * their values before serializing, so a careless `log.info({ req })` cannot
 * leak a key, password or token.
 */
const redactPaths = [
  'password',
  'token',
  'secret',
  'apiKey',
  'webhookSecret',
  'authorization',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  '*.webhookSecret',
  '*.authorization',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
];

/** One JSON line per event, with the active span's ids so logs join traces. */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    redact: { paths: redactPaths, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      return context && isSpanContextValid(context) ? { traceId: context.traceId, spanId: context.spanId } : {};
    },
  });
}

/** `j***@example.com`: enough to recognise a customer, not to harvest an address. */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}***@${domain}`;
}
