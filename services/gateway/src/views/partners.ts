import { z } from 'zod';
import type { partnersV1 } from '@esim/proto';
import { partnerStatuses, scopes, tiers, type PartnerStatus, type Scope, type Tier } from '@esim/vocabulary';
import { component } from '../http/components.js';

/** The partner as every API shows it (§4). Fastify serializes through this schema, so nothing else can leak. */
export const partnerView = component(
  z.object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    company: z.string(),
    status: z.enum(partnerStatuses),
    tier: z.enum(tiers),
    webhookUrl: z.string().nullable(),
    testWebhookUrl: z.string().nullable().describe('Where test events go (§14), signed with the test signing secret; null for none'),
    emailVerified: z.boolean().describe('Whether the partner proved its e-mail address (§4); approval waits for it'),
    createdAt: z.string(),
  }),
  'Partner',
  'both',
);

/** Key metadata; the key itself exists only in the e-mail that delivered it. */
export const apiKeyView = component(
  z.object({
    id: z.string(),
    prefix: z.string(),
    scopes: z.array(z.enum(scopes)),
    livemode: z.boolean().describe('false for a test key (`sk_test_…`, §14)'),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  }),
  'ApiKey',
  'both',
);

export const partnerWithKeysView = component(
  partnerView.extend({ apiKeys: z.array(apiKeyView), testKeys: z.array(apiKeyView).describe('Your test keys (§14), revoked ones included; never a secret') }),
  'PartnerWithKeys',
  'public',
);

export const adminPartnerView = component(
  partnerView.extend({
    rejectionReason: z.string().nullable(),
    apiKeys: z.array(apiKeyView),
    walletBalance: z.number().int().nullable().describe('Current wallet balance in minor units; null while the wallet service is unavailable'),
  }),
  'AdminPartner',
  'admin',
);

export type PartnerView = z.input<typeof partnerView>;

export function toPartnerView(partner: partnersV1.Partner): PartnerView {
  return {
    id: partner.id,
    name: partner.name,
    email: partner.email,
    company: partner.company,
    status: partner.status as PartnerStatus,
    tier: partner.tier as Tier,
    webhookUrl: partner.webhookUrl ?? null,
    testWebhookUrl: partner.testWebhookUrl ?? null,
    emailVerified: partner.emailVerified,
    createdAt: partner.createdAt,
  };
}

export function toApiKeyView(key: partnersV1.ApiKey): z.input<typeof apiKeyView> {
  return {
    id: key.id,
    prefix: key.prefix,
    scopes: key.scopes as Scope[],
    livemode: !key.test,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt ?? null,
    revokedAt: key.revokedAt ?? null,
  };
}
