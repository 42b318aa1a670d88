/**
 * What the apps read from the API, typed by the gateway's own zod schemas
 * (`import type`: nothing of the server reaches the bundle). A field
 * renamed or removed there fails `npm run typecheck` here.
 */
import type { z } from 'zod';
import type { auditEntry } from '../../services/gateway/src/routes/admin/audit.js';
import type { walletCredit } from '../../services/gateway/src/routes/admin/wallet.js';
import type { loginResponse } from '../../services/gateway/src/routes/public/login.js';
import type { paginationSchema, problemSchema } from '../../services/gateway/src/http/schemas.js';
import type { adminEsimView, bundleView, esimStateView } from '../../services/gateway/src/views/esims.js';
import type { adminOrderView, orderView } from '../../services/gateway/src/views/orders.js';
import type { adminPartnerView, apiKeyView, partnerView, partnerWithKeysView } from '../../services/gateway/src/views/partners.js';
import type { adminPlanView, planView } from '../../services/gateway/src/views/plans.js';
import type { ledgerEntryView, walletView } from '../../services/gateway/src/views/wallet.js';
import type { adminWebhookDeliveryView, webhookDeliveryView } from '../../services/gateway/src/views/webhookDeliveries.js';
import type { webhookEndpointView, webhookEndpointWithSecret } from '../../services/gateway/src/views/webhookEndpoints.js';

export type Problem = z.output<typeof problemSchema>;
export type Pagination = z.output<typeof paginationSchema>;
export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

export type Partner = z.output<typeof partnerView>;
/**
 * §14 adds `testKeys` and `testWebhookUrl` to GET /partner/me (tm-accounts);
 * optional here so the portal reads them whether or not this build's
 * gateway schema has them yet.
 */
export type PartnerWithKeys = z.output<typeof partnerWithKeysView> & { testKeys?: ApiKey[]; testWebhookUrl?: string | null };
export type AdminPartner = z.output<typeof adminPartnerView>;
export type ApiKey = z.output<typeof apiKeyView>;
export type Plan = z.output<typeof planView>;
export type AdminPlan = z.output<typeof adminPlanView>;
export type Wallet = z.output<typeof walletView>;
export type LedgerEntry = z.output<typeof ledgerEntryView>;
export type Order = z.output<typeof orderView>;
export type AdminOrder = z.output<typeof adminOrderView>;
/** §13: an eSIM's state, use and bundles. */
export type Esim = z.output<typeof esimStateView>;
export type AdminEsim = z.output<typeof adminEsimView>;
export type Bundle = z.output<typeof bundleView>;
export type WebhookDelivery = z.output<typeof webhookDeliveryView>;
export type AdminWebhookDelivery = z.output<typeof adminWebhookDeliveryView>;
export type WebhookEndpoint = z.output<typeof webhookEndpointView>;
export type WebhookEndpointWithSecret = z.output<typeof webhookEndpointWithSecret>;
export type AuditEntry = z.output<typeof auditEntry>;

/**
 * §14: every view a partner reads carries `livemode`. A view's own schema
 * gains it with test mode; the apps read it through this, which holds
 * whether or not that schema has it yet.
 */
export type Livemode = { livemode?: boolean };
/** POST /partner/me/test-keys: the only answer that ever holds the test key in full (§14). */
export interface CreatedTestKey {
  key: string;
  id: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
}
/** POST /partner/me/test-webhook-secret: the new test signing secret, once. */
export type TestWebhookSecret = { secret?: string; webhookSecret?: string };

export type LoginAnswer = z.output<typeof loginResponse>;
/** POST /admin/v1/partners/{id}/wallet/topups and …/adjustments. */
export type WalletCredit = z.output<typeof walletCredit>;
