import { z } from 'zod';

/**
 * Every event that crosses a service boundary, declared once: its subject
 * (without the namespace), its stream, and its payload schema. Publishers
 * validate before writing to the outbox; consumers parse on receipt.
 */
export const streams = {
  /** Mail requests: a work queue, so a message is gone once the mailer acks it. */
  MAIL: { subjects: ['mail.>'], retention: 'workqueue', maxAgeMs: 7 * 86_400_000 },
  /** Operator actions recorded by any service; the partners service keeps the log. */
  AUDIT: { subjects: ['audit.>'], retention: 'limits', maxAgeMs: 7 * 86_400_000 },
  /** Partner account changes other services react to. */
  PARTNERS: { subjects: ['partners.>'], retention: 'limits', maxAgeMs: 86_400_000 },
  /** Catalog changes; catalog replicas refresh their in-memory plans. */
  CATALOG: { subjects: ['catalog.>'], retention: 'limits', maxAgeMs: 86_400_000 },
} as const satisfies Record<string, StreamSpec>;

export interface StreamSpec {
  subjects: readonly string[];
  retention: 'limits' | 'workqueue';
  maxAgeMs: number;
}

export type StreamName = keyof typeof streams;

/** Base64 AES-256-GCM ciphertext under the platform data key; only the mailer opens it. */
const sealed = z.string().regex(/^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/, 'sealed secret');

export const events = {
  'mail.requested': {
    stream: 'MAIL',
    data: z.object({
      to: z.email(),
      template: z.enum(['application_received', 'partner_approved', 'partner_rejected', 'api_key_issued', 'webhook_secret_rotated']),
      /** Non-secret template values (names, tier, reason, key prefix). */
      values: z.record(z.string(), z.string()),
      /** Secret template values (an API key, a webhook secret), sealed. */
      sealedValues: z.record(z.string(), sealed).default({}),
    }),
  },
  'audit.recorded': {
    stream: 'AUDIT',
    data: z.object({
      action: z.string().min(1),
      target: z.string().min(1),
      operator: z.string(),
      requestId: z.string(),
      details: z.record(z.string(), z.unknown()),
      occurredAt: z.string(),
    }),
  },
  /** Keys whose cached credentials are stale (revoked, partner suspended, tier changed). */
  'partners.credentials.changed': {
    stream: 'PARTNERS',
    data: z.object({ partnerId: z.string(), prefixes: z.array(z.string()) }),
  },
  'catalog.plan.changed': {
    stream: 'CATALOG',
    data: z.object({ planId: z.string(), active: z.boolean() }),
  },
} as const satisfies Record<string, { stream: StreamName; data: z.ZodType }>;

export type EventType = keyof typeof events;
export type EventData<T extends EventType> = z.output<(typeof events)[T]['data']>;

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  occurredAt: string;
  data: EventData<T>;
}
