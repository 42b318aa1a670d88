/**
 * The operationId of every documented route: the method names generators and
 * the SDK give them. Listed here, not on each route, so one table shows that
 * they read alike; a route missing from it still gets a derived id (below),
 * so a new route never ships without one.
 */
const named: Record<string, string> = {
  'POST /api/v1/partner/register': 'register',
  'POST /api/v1/partner/login': 'login',
  'GET /api/v1/partner/me': 'getMe',
  'PATCH /api/v1/partner/me': 'updateMe',
  'POST /api/v1/partner/me/test-keys': 'createTestKey',
  'POST /api/v1/partner/me/test-keys/{keyId}/revoke': 'revokeTestKey',
  'POST /api/v1/partner/me/test-webhook-secret': 'rotateTestWebhookSecret',
  'POST /api/v1/partner/me/test-data/delete': 'deleteTestData',
  'GET /api/v1/partner/catalog': 'listPlans',
  'GET /api/v1/partner/me/catalog': 'portalListPlans',
  'GET /api/v1/partner/wallet': 'getWallet',
  'GET /api/v1/partner/wallet/ledger': 'listLedgerEntries',
  'GET /api/v1/partner/me/wallet': 'portalGetWallet',
  'GET /api/v1/partner/me/wallet/ledger': 'portalListLedgerEntries',
  'POST /api/v1/partner/test/wallet/credit': 'creditTestWallet',
  'POST /api/v1/partner/me/test/wallet/credit': 'portalCreditTestWallet',
  'POST /api/v1/partner/orders': 'createOrder',
  'GET /api/v1/partner/orders': 'listOrders',
  'GET /api/v1/partner/orders/{orderId}': 'getOrder',
  'POST /api/v1/partner/orders/{orderId}/cancel': 'cancelOrder',
  'GET /api/v1/partner/me/orders': 'portalListOrders',
  'GET /api/v1/partner/me/orders/{orderId}': 'portalGetOrder',
  'POST /api/v1/partner/me/orders/{orderId}/cancel': 'portalCancelOrder',
  'POST /api/v1/partner/orders/quote': 'quoteOrder',
  'GET /api/v1/partner/orders/{orderId}/esims.csv': 'exportOrderEsims',
  'GET /api/v1/partner/me/orders/{orderId}/esims.csv': 'portalExportOrderEsims',
  'GET /api/v1/partner/esims': 'listEsims',
  'GET /api/v1/partner/esims/{iccid}': 'getEsim',
  'GET /api/v1/partner/me/esims': 'portalListEsims',
  'GET /api/v1/partner/me/esims/{iccid}': 'portalGetEsim',
  'POST /api/v1/partner/esims/{iccid}/suspend': 'suspendEsim',
  'POST /api/v1/partner/esims/{iccid}/resume': 'resumeEsim',
  'POST /api/v1/partner/me/esims/{iccid}/suspend': 'portalSuspendEsim',
  'POST /api/v1/partner/me/esims/{iccid}/resume': 'portalResumeEsim',
  'GET /api/v1/partner/me/webhook-deliveries': 'portalListWebhookDeliveries',
  'POST /api/v1/partner/me/webhook/test': 'portalSendTestWebhook',
  'GET /api/v1/partner/me/webhook-endpoints': 'portalListWebhookEndpoints',
  'POST /api/v1/partner/me/webhook-endpoints': 'portalCreateWebhookEndpoint',
  'PATCH /api/v1/partner/me/webhook-endpoints/{endpointId}': 'portalUpdateWebhookEndpoint',
  'DELETE /api/v1/partner/me/webhook-endpoints/{endpointId}': 'portalDeleteWebhookEndpoint',
  'POST /api/v1/partner/me/webhook-endpoints/{endpointId}/rotate-secret': 'portalRotateWebhookEndpointSecret',
  'POST /api/v1/partner/me/webhook-endpoints/{endpointId}/recover': 'portalRecoverWebhookEndpoint',
  'POST /api/v1/partner/me/webhook-endpoints/{endpointId}/test': 'portalTestWebhookEndpoint',
  'POST /supplier/v1/notifications': 'receiveSupplierNotification',
  'GET /admin/v1/partners': 'listPartners',
  'GET /admin/v1/partners/{id}': 'getPartner',
  'PATCH /admin/v1/partners/{id}': 'updatePartner',
  'POST /admin/v1/partners/{id}/approve': 'approvePartner',
  'POST /admin/v1/partners/{id}/reject': 'rejectPartner',
  'POST /admin/v1/partners/{id}/suspend': 'suspendPartner',
  'POST /admin/v1/partners/{id}/reinstate': 'reinstatePartner',
  'GET /admin/v1/partners/{id}/keys': 'listKeys',
  'POST /admin/v1/partners/{id}/keys': 'issueKey',
  'POST /admin/v1/partners/{id}/keys/{keyId}/revoke': 'revokeKey',
  'POST /admin/v1/partners/{id}/webhook-secret/rotate': 'rotateWebhookSecret',
  'GET /admin/v1/audit': 'listAuditEntries',
  'GET /admin/v1/plans': 'listPlans',
  'POST /admin/v1/plans': 'createPlan',
  'GET /admin/v1/plans/{id}': 'getPlan',
  'PATCH /admin/v1/plans/{id}': 'updatePlan',
  'GET /admin/v1/partners/{id}/wallet': 'getWallet',
  'POST /admin/v1/partners/{id}/wallet/topups': 'topUpWallet',
  'POST /admin/v1/partners/{id}/wallet/adjustments': 'adjustWallet',
  'GET /admin/v1/orders': 'listOrders',
  'GET /admin/v1/orders/{id}': 'getOrder',
  'GET /admin/v1/esims': 'listEsims',
  'GET /admin/v1/esims/{iccid}': 'getEsim',
  'GET /admin/v1/webhook-deliveries': 'listWebhookDeliveries',
  'POST /admin/v1/webhook-deliveries/{id}/retry': 'retryWebhookDelivery',
  'GET /admin/v1/partners/{id}/webhook-endpoints': 'listWebhookEndpoints',
  'POST /admin/v1/partners/{id}/webhook-endpoints': 'createWebhookEndpoint',
  'PATCH /admin/v1/partners/{id}/webhook-endpoints/{endpointId}': 'updateWebhookEndpoint',
  'DELETE /admin/v1/partners/{id}/webhook-endpoints/{endpointId}': 'deleteWebhookEndpoint',
  'POST /admin/v1/partners/{id}/webhook-endpoints/{endpointId}/rotate-secret': 'rotateWebhookEndpointSecret',
  'POST /admin/v1/partners/{id}/webhook-endpoints/{endpointId}/recover': 'recoverWebhookEndpoint',
  'POST /admin/v1/partners/{id}/webhook-endpoints/{endpointId}/test': 'testWebhookEndpoint',
  'GET /admin/v1/dead-letters': 'listDeadLetters',
  'POST /admin/v1/dead-letters/redrive': 'redriveDeadLetters',
  'POST /admin/v1/reconciliation/run': 'runReconciliation',
  'GET /admin/v1/reconciliation': 'listReconciliationRuns',
};

const verbs: Record<string, string> = { GET: 'get', POST: 'post', PUT: 'put', PATCH: 'update', DELETE: 'delete' };
const pascal = (word: string) => word.replace(/(^|[-_])([a-z0-9])/g, (_, _sep, c: string) => c.toUpperCase());

/** `GET /api/v1/partner/esims/{iccid}/usage` → `getEsimsByIccidUsage`: unique and stable, if plainer than the table's. */
function derived(method: string, path: string): string {
  const segments = path.replace(/^\/(api|admin|supplier)\/v1(\/partner)?/, '').split('/').filter(Boolean);
  const collection = !/^\{/.test(segments.at(-1) ?? '');
  const verb = method === 'GET' && collection ? 'list' : (verbs[method] ?? method.toLowerCase());
  return verb + segments.map((s) => (s.startsWith('{') ? `By${pascal(s.slice(1, -1))}` : pascal(s))).join('');
}

/** `path` in OpenAPI form (`{id}`, not `:id`). */
export function operationIdFor(method: string, path: string): string {
  return named[`${method} ${path}`] ?? derived(method, path);
}
