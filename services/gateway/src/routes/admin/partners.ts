import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditContextOf } from '../../auth/adminAuth.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { adminPartnerView, partnerView, toApiKeyView, toPartnerView } from '../../views/partners.js';
import { webhookUrlSchema } from '../../views/webhookUrl.js';
import { AppError } from '@esim/errors';
import { partnerStatuses, tiers } from '@esim/vocabulary';
import type { PartnersClient, WalletClient } from '../../backends.js';
import { component } from '../../http/components.js';

const tier = z.enum(tiers);
const params = z.object({ id: z.string().min(1) });
const tags = ['Partners'];

const partnerPage = component(pageOf(partnerView), 'PartnerPage', 'admin');

/**
 * The partner's balance, or null while the wallet service is down: the
 * partner's own record (review, keys, suspension) stays readable then.
 */
async function balanceOf(wallet: WalletClient, partnerId: string): Promise<number | null> {
  try {
    // One entry is the least the wallet reads (0 means its default of 50); only the balance is shown.
    return Number((await wallet.getWallet({ partnerId, ledgerLimit: 1 })).balance);
  } catch (error) {
    if (error instanceof AppError && error.code === 'UNAVAILABLE') return null;
    throw error;
  }
}

export interface AdminPartnerRouteDeps {
  partners: PartnersClient;
  wallet: WalletClient;
  allowInsecureWebhookUrls: boolean;
}

/** Applications and partner accounts: review, approval, suspension, tier (§10). */
export function adminPartnerRoutes(app: FastifyInstance, { partners, wallet, allowInsecureWebhookUrls }: AdminPartnerRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/partners',
    {
      schema: {
        tags,
        summary: 'List applications and partners, newest first',
        querystring: z.strictObject({ status: z.enum(partnerStatuses).optional(), ...pageQuery() }),
        response: { 200: partnerPage, ...problems(400, 401, 503) },
      },
    },
    async (request) => {
      const { status, page, limit } = request.query;
      const result = await partners.listPartners({ status: status ?? '', page: { page, limit } });
      return { data: result.partners.map(toPartnerView), pagination: pagination(page, limit, result.total) };
    },
  );

  typed.get(
    '/partners/:id',
    {
      schema: {
        tags,
        summary: 'A partner with its keys metadata and wallet balance',
        params,
        response: { 200: adminPartnerView, ...problems(401, 404, 503) },
      },
    },
    async (request) => {
      const detail = await partners.getPartner({ id: request.params.id });
      const walletBalance = await balanceOf(wallet, detail.partner!.id);
      return {
        ...toPartnerView(detail.partner!),
        rejectionReason: detail.partner!.rejectionReason ?? null,
        apiKeys: detail.apiKeys.map(toApiKeyView),
        walletBalance,
      };
    },
  );

  typed.post(
    '/partners/:id/approve',
    {
      schema: {
        tags,
        summary: 'Approve a pending application',
        description: 'Issues the first API key (all four scopes) and the webhook signing secret, and e-mails both to the partner. 409 INVALID_STATE unless pending.',
        params,
        body: z.strictObject({ tier: tier.optional() }).nullish(),
        response: { 200: partnerView, ...problems(400, 401, 404, 409, 413, 415, 503) },
      },
    },
    async (request) =>
      toPartnerView(await partners.approvePartner({ id: request.params.id, tier: request.body?.tier ?? '', audit: auditContextOf(request) })),
  );

  typed.post(
    '/partners/:id/reject',
    {
      schema: {
        tags,
        summary: 'Reject a pending application',
        description: 'The reason is e-mailed to the applicant.',
        params,
        body: z.strictObject({ reason: z.string().trim().min(1).max(1000) }),
        response: { 200: partnerView, ...problems(400, 401, 404, 409, 413, 415, 503) },
      },
    },
    async (request) =>
      toPartnerView(await partners.rejectPartner({ id: request.params.id, reason: request.body.reason, audit: auditContextOf(request) })),
  );

  for (const action of ['suspend', 'reinstate'] as const) {
    typed.post(
      `/partners/:id/${action}`,
      {
        schema: {
          tags,
          summary: action === 'suspend' ? 'Suspend an approved partner (its keys answer 403)' : 'Reinstate a suspended partner',
          params,
          response: { 200: partnerView, ...problems(401, 404, 409, 503) },
        },
      },
      async (request) => {
        const call = action === 'suspend' ? partners.suspendPartner : partners.reinstatePartner;
        return toPartnerView(await call({ id: request.params.id, audit: auditContextOf(request) }));
      },
    );
  }

  typed.patch(
    '/partners/:id',
    {
      schema: {
        tags,
        summary: 'Change a partner’s tier or webhook URL',
        params,
        body: z.strictObject({ tier: tier.optional(), webhookUrl: webhookUrlSchema(allowInsecureWebhookUrls).nullable().optional() }),
        response: { 200: partnerView, ...problems(400, 401, 404, 413, 415, 503) },
      },
    },
    async (request) => {
      const { tier: newTier, webhookUrl } = request.body;
      const partner = await partners.updatePartner({
        id: request.params.id,
        tier: newTier,
        webhookUrl: webhookUrl ?? undefined,
        clearWebhookUrl: webhookUrl === null,
        audit: auditContextOf(request),
      });
      return toPartnerView(partner);
    },
  );
}
