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
  rejectionReason: string | null;
  createdAt: Date;
}

/** The fields an update may set; every other column belongs to the account's story (ids, e-mail, password). */
export type PartnerChanges = Partial<Pick<Partner, 'status' | 'tier' | 'webhookUrl' | 'webhookSecretSealed' | 'rejectionReason'>>;

/** Key metadata. The key's secret is never stored; only its hash is, and that stays in the store and the credential. */
export interface ApiKey {
  id: string;
  partnerId: string;
  prefix: string;
  scopes: Scope[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** What the gateway needs to verify a key itself; declared once beside the key format. */
export type { KeyCredential } from '@esim/api-keys';

/** Who performed an operator action; absent when a partner acts on its own account. */
export interface Actor {
  operator: string;
  requestId: string;
}
