import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { LoginThrottle } from '../../auth/loginThrottle.js';
import { portalPartnerOf } from '../../auth/portalAuth.js';
import type { PartnersClient, WalletClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { problems } from '../../http/schemas.js';
import { partnerView, partnerWithKeysView, toApiKeyView, toPartnerView } from '../../views/partners.js';
import { webhookUrlSchema } from '../../views/webhookUrl.js';
import { passwordRule } from './account.js';

export interface MeRouteDeps {
  partners: PartnersClient;
  /** The portal token check of auth/portalAuth. */
  portalToken: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  allowInsecureWebhookUrls: boolean;
  /** Keeps the lowBalanceThreshold (§9 wallet.balance_low); optional so a caller without it keeps the old routes. */
  wallet?: WalletClient;
  /** The failed-login budgets: a wrong current password on a change counts as a failed login (§4). */
  throttle?: LoginThrottle;
}

/** §9: the balance below which a debit emits wallet.balance_low; null for none. */
const lowBalanceThreshold = z
  .number()
  .int()
  .min(0)
  .max(1_000_000_000)
  .nullable()
  .describe('Minor units: when a debit takes your wallet below it, one `wallet.balance_low` webhook (again only after a credit lifts it back); null for none');
const meView = component(partnerView.extend({ lowBalanceThreshold: lowBalanceThreshold.optional() }), 'PartnerMe', 'public');
const meWithKeysView = component(partnerWithKeysView.extend({ lowBalanceThreshold: lowBalanceThreshold.optional() }), 'PartnerMeWithKeys', 'public');

const portalSecurity = [{ portalToken: [] }];

/** GET and PATCH /partner/me: the portal's "limited UI" (§4), with the portal JWT. */
export function meRoutes(app: FastifyInstance, { partners, portalToken: requirePortal, allowInsecureWebhookUrls, wallet, throttle }: MeRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  // Read beside the partner; a wallet service that is down leaves the field out rather than failing the account view.
  const thresholdOf = async (partnerId: string): Promise<{ lowBalanceThreshold?: number | null }> => {
    if (!wallet) return {};
    try {
      const { threshold } = await wallet.getLowBalanceThreshold({ partnerId });
      return { lowBalanceThreshold: threshold === undefined ? null : Number(threshold) };
    } catch {
      return {};
    }
  };

  typed.get(
    '/partner/me',
    {
      schema: {
        tags: ['Portal'],
        summary: 'Your account and API key metadata',
        security: portalSecurity,
        response: { 200: meWithKeysView, ...problems(401, 404, 429, 503) },
      },
      onRequest: requirePortal,
    },
    async (request) => {
      const partnerId = portalPartnerOf(request);
      const [detail, threshold] = await Promise.all([request.portalPartner ?? partners.getPartner({ id: partnerId }), thresholdOf(partnerId)]);
      return { ...toPartnerView(detail.partner!), apiKeys: detail.apiKeys.map(toApiKeyView), testKeys: detail.testKeys.map(toApiKeyView), ...threshold };
    },
  );

  typed.patch(
    '/partner/me',
    {
      schema: {
        tags: ['Portal'],
        summary: 'Set or clear your webhook URLs and your low-balance threshold',
        description:
          'Each field sent is changed; one left out is kept. `webhookUrl` is your primary webhook endpoint (§9); `testWebhookUrl` receives your test events (§14), and may be set while your application is pending. A change of either URL is written to the audit log (old and new URL) and e-mailed to you at once.',
        security: portalSecurity,
        body: z.strictObject({
          webhookUrl: webhookUrlSchema(allowInsecureWebhookUrls).nullable().optional(),
          testWebhookUrl: webhookUrlSchema(allowInsecureWebhookUrls).nullable().optional(),
          lowBalanceThreshold: lowBalanceThreshold.optional(),
        }),
        response: { 200: meView, ...problems(400, 401, 404, 413, 415, 429, 503) },
      },
      onRequest: requirePortal,
    },
    async (request) => {
      const { webhookUrl, testWebhookUrl, lowBalanceThreshold: threshold } = request.body;
      const partnerId = portalPartnerOf(request);
      let kept: { lowBalanceThreshold?: number | null } | undefined;
      if (threshold !== undefined && wallet) {
        const set = await wallet.setLowBalanceThreshold({ partnerId, threshold: threshold === null ? undefined : BigInt(threshold) });
        kept = { lowBalanceThreshold: set.threshold === undefined ? null : Number(set.threshold) };
      }
      const partner =
        webhookUrl === undefined && testWebhookUrl === undefined
          ? (await partners.getPartner({ id: partnerId })).partner!
          : await partners.updatePartner({
              id: partnerId,
              webhookUrl: webhookUrl ?? undefined,
              clearWebhookUrl: webhookUrl === null,
              testWebhookUrl: testWebhookUrl ?? undefined,
              clearTestWebhookUrl: testWebhookUrl === null,
            });
      return { ...toPartnerView(partner), ...(kept ?? (await thresholdOf(partnerId))) };
    },
  );

  typed.post(
    '/partner/me/password',
    {
      schema: {
        tags: ['Portal'],
        summary: 'Change your password',
        description:
          'A wrong current password is 401 INVALID_CREDENTIALS and counts as a failed login. Every portal token issued before the change stops working (401 INVALID_TOKEN), this one included: log in again. The change is e-mailed and audited.',
        security: portalSecurity,
        body: z.strictObject({ currentPassword: z.string().min(1).max(1024), newPassword: passwordRule }),
        response: { 204: z.null().describe('Password changed'), ...problems(400, 401, 404, 413, 415, 429, 503) },
      },
      onRequest: requirePortal,
    },
    async (request, reply) => {
      const partnerId = portalPartnerOf(request);
      const change = () =>
        partners.changePassword({ partnerId, currentPassword: request.body.currentPassword, newPassword: request.body.newPassword, requestId: request.id });
      const email = request.portalPartner?.partner?.email;
      await (throttle && email ? throttle.attempt({ email, address: request.ip }, reply, change) : change());
      return reply.code(204).send(null);
    },
  );
}
