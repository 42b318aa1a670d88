import type { PartnerStatus, Scope, Tier } from '@esim/vocabulary';
import { auditDetailsOf, type AuditEntry } from '../domain/auditEntry.js';
import type { ApiKey, KeyCredential, Partner } from '../domain/partner.js';

/** Row shapes of the partners schema, as pg returns them; only domain types leave src/store. */
export interface PartnerRow {
  id: string;
  name: string;
  email: string;
  company: string;
  password_hash: string;
  status: PartnerStatus;
  tier: Tier;
  webhook_url: string | null;
  webhook_secret_sealed: string | null;
  test_webhook_url: string | null;
  test_webhook_secret_sealed: string | null;
  rejection_reason: string | null;
  email_verified_at: Date | null;
  session_version: number;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  partner_id: string;
  prefix: string;
  secret_hash: string;
  scopes: Scope[];
  livemode: boolean;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface AuditRow {
  id: string;
  action: string;
  target: string;
  operator: string;
  request_id: string;
  details: Record<string, unknown>;
  created_at: Date;
  /** Joined from partners.operators when `operator` names an account. */
  operator_email?: string | null;
}

export function toPartner(row: PartnerRow): Partner {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    company: row.company,
    status: row.status,
    tier: row.tier,
    webhookUrl: row.webhook_url,
    webhookSecretSealed: row.webhook_secret_sealed,
    testWebhookUrl: row.test_webhook_url,
    testWebhookSecretSealed: row.test_webhook_secret_sealed,
    rejectionReason: row.rejection_reason,
    emailVerifiedAt: row.email_verified_at,
    sessionVersion: row.session_version,
    createdAt: row.created_at,
  };
}

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    partnerId: row.partner_id,
    prefix: row.prefix,
    scopes: row.scopes,
    livemode: row.livemode,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export function toKeyCredential(row: ApiKeyRow & { status: PartnerStatus; tier: Tier }): KeyCredential {
  return {
    keyId: row.id,
    partnerId: row.partner_id,
    livemode: row.livemode,
    secretHash: row.secret_hash,
    scopes: row.scopes,
    revoked: row.revoked_at !== null,
    partnerStatus: row.status,
    tier: row.tier,
  };
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    action: row.action,
    target: row.target,
    operator: row.operator,
    requestId: row.request_id,
    details: auditDetailsOf(row.details),
    operatorEmail: row.operator_email ?? null,
    createdAt: row.created_at,
  };
}
