import type { WebhookEndpoint } from './attemptDelivery.js';

/** Who acts: an operator (audited) or the partner itself through the portal. */
export interface AuditContext {
  operator: string;
  requestId: string;
  /** The free-text X-Operator header, recorded as the entry's note; never the actor. */
  note?: string;
}

/**
 * What the endpoints API needs from the partners service, which keeps the
 * primary endpoint's URL (the partner's webhookUrl, §4) and its signing
 * secret (issued at approval).
 */
export interface PartnersPort {
  /** Asked fresh (not from the delivery cache): a partner reading its endpoints sees its own write. */
  primaryOf(partnerId: string): Promise<WebhookEndpoint>;
  /** Sets or clears the webhookUrl (audited and e-mailed by the partners service as any webhookUrl change). */
  setPrimaryUrl(partnerId: string, url: string | null, audit: AuditContext | undefined): Promise<void>;
  /** Rotates the approval secret with an overlap; answers the new secret, sealed. */
  rotatePrimarySecret(partnerId: string, overlapHours: number, audit: AuditContext): Promise<string>;
}
