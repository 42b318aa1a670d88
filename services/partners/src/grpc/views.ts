import type { MessageInitShape } from '@bufbuild/protobuf';
import { partnersV1 } from '@esim/proto';
import type { ApiKeyRow, AuditRow, PartnerRow } from '../store/rows.js';

type PartnerMessage = MessageInitShape<typeof partnersV1.PartnerSchema>;
type ApiKeyMessage = MessageInitShape<typeof partnersV1.ApiKeySchema>;
type AuditMessage = MessageInitShape<typeof partnersV1.AuditEntrySchema>;

/** The partner as the API shows it: no password hash, no sealed secret. */
export function partnerMessage(row: PartnerRow): PartnerMessage {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    company: row.company,
    status: row.status,
    tier: row.tier,
    webhookUrl: row.webhook_url ?? undefined,
    createdAt: row.created_at.toISOString(),
    rejectionReason: row.rejection_reason ?? undefined,
  };
}

/** Key metadata only: the secret hash stays in this service. */
export function apiKeyMessage(row: ApiKeyRow): ApiKeyMessage {
  return {
    id: row.id,
    prefix: row.prefix,
    scopes: row.scopes,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString(),
    revokedAt: row.revoked_at?.toISOString(),
  };
}

export function auditMessage(row: AuditRow): AuditMessage {
  return {
    id: row.id,
    action: row.action,
    target: row.target,
    operator: row.operator,
    requestId: row.request_id,
    detailsJson: JSON.stringify(row.details),
    createdAt: row.created_at.toISOString(),
  };
}
