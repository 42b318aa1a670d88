import type { PartnerStatus, Scope, Tier } from '@esim/vocabulary';

/** A partner account as this service holds it. The password hash never leaves the store's login lookup. */
export interface Partner {
  id: string;
  name: string;
  email: string;
  company: string;
  status: PartnerStatus;
  tier: Tier;
  webhookUrl: string | null;
  /** The webhook signing secret, sealed under the data key (AES-256-GCM); null before approval. */
  webhookSecretSealed: string | null;
  /** Where test events go (§14); null for none. */
  testWebhookUrl: string | null;
  /** The test webhook signing secret, sealed for the test account (ptn_…_test); null until the partner asks for one. */
  testWebhookSecretSealed: string | null;
  rejectionReason: string | null;
  /** When the partner proved its e-mail address (§4); null until then. Approval needs it. */
  emailVerifiedAt: Date | null;
  /** Raised by every password change or reset; portal tokens issued under an older value are refused. */
  sessionVersion: number;
  createdAt: Date;
}

/** The fields an update may set; every other column belongs to the account's story (ids, e-mail, password). */
export type PartnerChanges = Partial<Pick<Partner, 'status' | 'tier' | 'webhookUrl' | 'webhookSecretSealed' | 'testWebhookUrl' | 'testWebhookSecretSealed' | 'rejectionReason'>>;

/** Key metadata. The key's secret is never stored; only its hash is, and that stays in the store and the credential. */
export interface ApiKey {
  id: string;
  partnerId: string;
  prefix: string;
  scopes: Scope[];
  /** False for a test key (§14). */
  livemode: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** What the gateway needs to verify a key itself; declared once beside the key format. */
export type { KeyCredential } from '@esim/api-keys';

/**
 * Who performed an action, from the credential (§10): an operator id
 * (`opr_…`), `admin-token`, or `partner:<id>` when a partner acts on its own
 * account. `note` is the free-text X-Operator header, never the actor.
 */
export interface Actor {
  operator: string;
  requestId: string;
  note?: string | undefined;
}

/** The actor of a partner's own change (a password, its webhook URL). */
export function partnerActor(partnerId: string, requestId = ''): Actor {
  return { operator: `partner:${partnerId}`, requestId };
}
