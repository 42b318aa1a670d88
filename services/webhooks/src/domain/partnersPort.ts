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
 * primary endpoint's URL (the partner's webhookUrl, §4; the testWebhookUrl
 * for the test account, §14) and its signing secret (issued at approval; the
 * test secret). Every method takes an ACCOUNT id (`ptn_X` or `ptn_X_test`).
 */
export interface PartnersPort {
  /** Asked fresh (not from the delivery cache): a partner reading its endpoints sees its own write. */
  primaryOf(accountId: string): Promise<WebhookEndpoint>;
  /** Sets or clears the account's webhookUrl or testWebhookUrl (audited and e-mailed by the partners service as any such change). */
  setPrimaryUrl(accountId: string, url: string | null, audit: AuditContext | undefined): Promise<void>;
  /**
   * Rotates the account's primary secret; answers the new one in clear.
   * `announced`: the partners service e-mailed the rotation itself (live:
   * with the secret); a test secret's rotation is not, so we announce it.
   * A test secret has no overlap (the partners service keeps none).
   */
  rotatePrimarySecret(accountId: string, overlapHours: number, audit: AuditContext): Promise<{ secret: string; announced: boolean }>;
}
