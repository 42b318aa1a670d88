/**
 * Who may call what, inside the platform: for each calling service (the
 * identity of its client certificate), the gRPC services and methods its
 * role needs, and nothing else. Every server enforces it (addService), so a
 * leaked certificate of one service cannot drive another's money path; the
 * Kubernetes NetworkPolicies say the same at the network level, and a test
 * (test/grpc-access.test.ts) holds the two together: the services a caller
 * may call here are exactly the ones its config dials (scripts/deploy/calls.ts),
 * every method named exists, and every method a caller's code uses is here.
 *
 * A new RPC is one line here, under each service that calls it; a new gRPC
 * server is one entry in `grpcHosts` (and its `<NAME>_ADDR` in the callers'
 * configs, which the NetworkPolicies follow).
 */

/** The platform service that serves each gRPC service (proto type name). */
export const grpcHosts: Readonly<Record<string, string>> = {
  'partners.v1.PartnersService': 'partners',
  'catalog.v1.CatalogService': 'catalog',
  'wallet.v1.WalletService': 'wallet',
  'orders.v1.OrdersService': 'orders',
  'webhooks.v1.WebhooksService': 'webhooks',
  'provisioning.v1.ProvisioningService': 'provisioning',
};

/** Caller identity → gRPC service (proto type name) → the methods it may call (proto names). */
export const grpcCallers: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  // The edge: the partner and admin APIs map onto these; nothing of the money path's internals (Reserve, GetPlanPrice).
  gateway: {
    'partners.v1.PartnersService': [
      'Register',
      'Login',
      'GetPartner',
      'ListPartners',
      'UpdatePartner',
      'ApprovePartner',
      'RejectPartner',
      'SuspendPartner',
      'ReinstatePartner',
      'ListApiKeys',
      // #24: e-mail verification, passwords and operator accounts.
      'VerifyEmail',
      'ResendVerification',
      'RequestPasswordReset',
      'ConfirmPasswordReset',
      'ChangePassword',
      'CreateOperator',
      'ListOperators',
      'RevokeOperator',
      'UpdateOperatorRole',
      'LookupOperatorToken',
      'TouchOperator',
      'IssueApiKey',
      'RevokeApiKey',
      'RotateWebhookSecret',
      'LookupApiKey',
      'TouchApiKey',
      'ListAuditEntries',
      // §14: the portal's test-mode calls.
      'IssueTestKey',
      'RevokeTestKey',
      'RotateTestWebhookSecret',
      'RequestTestDataDeletion',
    ],
    'catalog.v1.CatalogService': ['ListPlans', 'AdminListPlans', 'AdminGetPlan', 'CreatePlan', 'UpdatePlan'],
    'wallet.v1.WalletService': ['GetWallet', 'ListLedger', 'TopUp', 'Adjust', 'SetLowBalanceThreshold', 'GetLowBalanceThreshold', 'CreditTestWallet'],
    'orders.v1.OrdersService': ['CreateOrder', 'GetOrder', 'ListOrders', 'CancelOrder', 'GetEsim', 'ListEsims', 'RecordSupplierNotification', 'SetEsimSuspended', 'DriveTestEsim', 'RunReconciliation', 'ListReconciliationRuns', 'QuoteOrder'],
    'webhooks.v1.WebhooksService': [
      'ListDeliveries',
      'RetryDelivery',
      'SendTestEvent',
      'ListEndpoints',
      'CreateEndpoint',
      'UpdateEndpoint',
      'DeleteEndpoint',
      'RotateEndpointSecret',
      'RecoverEndpoint',
      'SendEndpointTest',
    ],
  },
  // The order saga: a tier's price, then the debit (and reading it back when the answer was lost).
  orders: {
    'catalog.v1.CatalogService': ['GetPlanPrice'],
    'wallet.v1.WalletService': ['Reserve', 'GetReservation', 'GetWallet', 'RefundOrder', 'GetReconciliationSnapshot'],
    // Cancellation (§13): the supplier's revoke goes through provisioning, which owns every supplier call.
    // The processing sweeper: what provisioning knows of an order whose result event was lost.
    // Suspension (§13): the connectivity provider stops or restarts data.
    'provisioning.v1.ProvisioningService': ['RevokeBundle', 'GetProvisioning', 'SetSuspended', 'ControlTestEsim'],
  },
  // Delivery: where to send and the sealed signing secret. The endpoints API (§9) changes the primary
  // endpoint, which is the partner's webhookUrl and approval secret: UpdatePartner (URL) and RotateWebhookSecret;
  // in test mode (§14) the testWebhookUrl (UpdatePartner) and the test secret (RotateTestWebhookSecret).
  webhooks: {
    'partners.v1.PartnersService': ['GetWebhookEndpoint', 'UpdatePartner', 'RotateWebhookSecret', 'RotateTestWebhookSecret'],
  },
};

/** Any authenticated service may ask a server's health (grpc.health.v1): it reveals nothing. */
const openToPlatform = new Set(['/grpc.health.v1.Health/Check', '/grpc.health.v1.Health/Watch']);

/** Decides one call: `path` is `/<package>.<Service>/<Method>`. */
export type AccessPolicy = (caller: string | undefined, path: string) => boolean;

/**
 * The platform's policy: `caller` may call `path` when the table lists it.
 * `unrestricted` identities may call anything: only the test harness
 * (NODE_ENV=test, packages/testing), never in production.
 */
export function platformAccess(options: { unrestricted?: readonly string[] } = {}): AccessPolicy {
  const allowed = new Set<string>();
  for (const [caller, services] of Object.entries(grpcCallers)) {
    for (const [service, methods] of Object.entries(services)) for (const method of methods) allowed.add(`${caller} /${service}/${method}`);
  }
  const unrestricted = new Set(options.unrestricted ?? []);
  return (caller, path) => caller !== undefined && (unrestricted.has(caller) || openToPlatform.has(path) || allowed.has(`${caller} ${path}`));
}

/** The identity the test harness's clients present (packages/testing); honoured only under NODE_ENV=test. */
export const testHarnessIdentity = 'test-harness';
