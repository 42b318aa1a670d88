import { AppError } from '@esim/errors';
import type { ServiceHandlers } from '@esim/grpc';
import { partnersV1 } from '@esim/proto';
import { listAuditEntries } from '../store/auditStore.js';
import { listApiKeys, touchApiKey } from '../store/keyStore.js';
import { findPartner, listPartners } from '../store/partnerStore.js';
import type { PartnerRow } from '../store/rows.js';
import type { Actor, PartnersDeps } from '../domain/deps.js';
import { issueKey, lookupCredential, revokeKey, rotateWebhookSecret } from '../domain/keys.js';
import { login, register } from '../domain/onboarding.js';
import { approve, reject, setSuspended, updateAccount } from '../domain/review.js';
import { apiKeyMessage, auditMessage, partnerMessage } from './views.js';

type Tier = PartnerRow['tier'];
const tiers = new Set(['standard', 'premium', 'enterprise']);

/** The gateway validated the request's shape; this guards the one enum the domain cannot take on trust. */
function tierOf(value: string | undefined): Tier | undefined {
  if (value === undefined || value === '') return undefined;
  if (!tiers.has(value)) throw new AppError('VALIDATION_ERROR', `Unknown tier ${value}.`, { errors: [{ path: 'tier', message: 'must be standard, premium or enterprise' }] });
  return value as Tier;
}

function actorOf(audit: { operator: string; requestId: string } | undefined): Actor {
  return { operator: audit?.operator ?? '', requestId: audit?.requestId ?? '' };
}

function page(request: { page?: { page: number; limit: number } | undefined }): { limit: number; offset: number } {
  const limit = request.page?.limit || 20;
  return { limit, offset: ((request.page?.page || 1) - 1) * limit };
}

async function existingPartner(deps: PartnersDeps, id: string): Promise<PartnerRow> {
  const partner = await findPartner(deps.pool, id);
  if (!partner) throw new AppError('PARTNER_NOT_FOUND', `No partner ${id}.`);
  return partner;
}

/** One line per RPC: translate the message, call the use case, translate the answer. */
export function partnersHandlers(deps: PartnersDeps): ServiceHandlers<typeof partnersV1.PartnersService.method> {
  return {
    register: async (r) => partnerMessage(await register(deps, r)),
    login: async (r) => partnerMessage(await login(deps, r.email, r.password)),
    getPartner: async (r) => {
      const partner = await existingPartner(deps, r.id);
      return { partner: partnerMessage(partner), apiKeys: (await listApiKeys(deps.pool, r.id)).map(apiKeyMessage) };
    },
    listPartners: async (r) => {
      const { rows, total } = await listPartners(deps.pool, { status: r.status, ...page(r) });
      return { partners: rows.map(partnerMessage), total };
    },
    updatePartner: async (r) =>
      partnerMessage(
        await updateAccount(
          deps,
          r.id,
          { tier: tierOf(r.tier), webhookUrl: r.clearWebhookUrl ? null : r.webhookUrl },
          r.audit ? actorOf(r.audit) : undefined,
        ),
      ),
    approvePartner: async (r) => partnerMessage(await approve(deps, r.id, tierOf(r.tier), actorOf(r.audit))),
    rejectPartner: async (r) => partnerMessage(await reject(deps, r.id, r.reason, actorOf(r.audit))),
    suspendPartner: async (r) => partnerMessage(await setSuspended(deps, r.id, true, actorOf(r.audit))),
    reinstatePartner: async (r) => partnerMessage(await setSuspended(deps, r.id, false, actorOf(r.audit))),
    listApiKeys: async (r) => {
      await existingPartner(deps, r.partnerId);
      return { apiKeys: (await listApiKeys(deps.pool, r.partnerId)).map(apiKeyMessage) };
    },
    issueApiKey: async (r) => apiKeyMessage(await issueKey(deps, r.partnerId, r.scopes, actorOf(r.audit))),
    revokeApiKey: async (r) => apiKeyMessage(await revokeKey(deps, r.partnerId, r.keyId, actorOf(r.audit))),
    rotateWebhookSecret: async (r) => ({ rotatedAt: (await rotateWebhookSecret(deps, r.id, actorOf(r.audit))).toISOString() }),
    lookupApiKey: async (r) => {
      const c = await lookupCredential(deps, r.prefix);
      return {
        keyId: c.id,
        partnerId: c.partner_id,
        secretHash: c.secret_hash,
        scopes: c.scopes,
        revoked: c.revoked_at !== null,
        partnerStatus: c.status,
        tier: c.tier,
      };
    },
    touchApiKey: async (r) => {
      await touchApiKey(deps.pool, r.keyId);
      return {};
    },
    listAuditEntries: async (r) => {
      const { rows, total } = await listAuditEntries(deps.pool, page(r));
      return { entries: rows.map(auditMessage), total };
    },
  };
}
