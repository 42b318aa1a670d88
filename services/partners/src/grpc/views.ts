import type { MessageInitShape } from '@bufbuild/protobuf';
import type { partnersV1 } from '@esim/proto';
import type { AuditDetailValue, AuditEntry } from '../domain/auditEntry.js';
import type { Operator } from '../domain/operator.js';
import type { Actor, ApiKey, KeyCredential, Partner } from '../domain/partner.js';

/** Conversions between proto messages and domain values, in one place; dates cross as ISO 8601 strings. */
type PartnerMessage = MessageInitShape<typeof partnersV1.PartnerSchema>;
type ApiKeyMessage = MessageInitShape<typeof partnersV1.ApiKeySchema>;
type CredentialMessage = MessageInitShape<typeof partnersV1.ApiKeyCredentialSchema>;
type AuditMessage = MessageInitShape<typeof partnersV1.AuditEntrySchema>;
type AuditDetailMessage = MessageInitShape<typeof partnersV1.AuditDetailSchema>;

/** The partner as the API shows it: the message has no field for the password hash or the sealed secret. */
export function partnerMessage(partner: Partner): PartnerMessage {
  return {
    id: partner.id,
    name: partner.name,
    email: partner.email,
    company: partner.company,
    status: partner.status,
    tier: partner.tier,
    webhookUrl: partner.webhookUrl ?? undefined,
    createdAt: partner.createdAt.toISOString(),
    rejectionReason: partner.rejectionReason ?? undefined,
    emailVerified: partner.emailVerifiedAt !== null,
    sessionVersion: partner.sessionVersion,
    testWebhookUrl: partner.testWebhookUrl ?? undefined,
  };
}

/** Key metadata only: the secret hash stays in this service (and the credential the gateway verifies with). */
export function apiKeyMessage(key: ApiKey): ApiKeyMessage {
  return {
    id: key.id,
    prefix: key.prefix,
    scopes: key.scopes,
    test: !key.livemode,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString(),
    revokedAt: key.revokedAt?.toISOString(),
  };
}

export function credentialMessage(credential: KeyCredential): CredentialMessage {
  const { livemode, ...rest } = credential;
  return { ...rest, test: !livemode };
}

export function auditMessage(entry: AuditEntry): AuditMessage {
  return {
    id: entry.id,
    action: entry.action,
    target: entry.target,
    operator: entry.operator,
    requestId: entry.requestId,
    details: Object.fromEntries(Object.entries(entry.details).map(([name, value]) => [name, auditDetailMessage(value)])),
    operatorEmail: entry.operatorEmail ?? undefined,
    createdAt: entry.createdAt.toISOString(),
  };
}

/** null is the message with no value set. */
function auditDetailMessage(value: AuditDetailValue): AuditDetailMessage {
  if (value === null) return {};
  if (typeof value === 'string') return { value: { case: 'text', value } };
  if (typeof value === 'number') return { value: { case: 'number', value } };
  if (typeof value === 'boolean') return { value: { case: 'flag', value } };
  return { value: { case: 'texts', value: { values: value } } };
}

/** An operator request without its audit context is logged as an anonymous operator, never refused. */
export function actorOf(audit: { operator: string; requestId: string; note?: string } | undefined): Actor {
  return { operator: audit?.operator ?? '', requestId: audit?.requestId ?? '', note: audit?.note || undefined };
}

/** The operator view of §10: never the token or its hash. */
export function operatorMessage(operator: Operator): MessageInitShape<typeof partnersV1.OperatorSchema> {
  return {
    id: operator.id,
    email: operator.email,
    name: operator.name,
    role: operator.role,
    createdAt: operator.createdAt.toISOString(),
    lastUsedAt: operator.lastUsedAt?.toISOString(),
    revokedAt: operator.revokedAt?.toISOString(),
  };
}
