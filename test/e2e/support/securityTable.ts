/**
 * Every authenticated route of the partner API, with the scope it needs.
 * security.test.ts runs every case of §3/§4 against each entry, so a route
 * that lands later is covered by adding one line here.
 */
export type Scope = 'catalog:read' | 'orders:write' | 'orders:read' | 'wallet:read';

export interface ApiKeyRoute {
  method: 'GET' | 'POST';
  path: string;
  scope: Scope;
  body?: unknown;
  /** What a valid key with the scope gets when that is not a success (the call reached the service): status and code. */
  accepted?: { status: number; code: string };
}

/** Well-formed ids no partner owns, so an authorized call reaches the service and hears its 404. */
const unknownOrderId = 'ord_01jzzzzzzzzzzzzzzzzzzzzzzz';
const unknownIccid = '8999000000000000000001';
const unknownPlanOrder = { clientRequestId: 'security-table', planId: 'plan_01jzzzzzzzzzzzzzzzzzzzzzzz', email: 'a@example.com', phoneNumber: '+33612345678' };

export const apiKeyRoutes: ApiKeyRoute[] = [
  { method: 'GET', path: '/partner/catalog', scope: 'catalog:read' },
  { method: 'GET', path: '/partner/wallet', scope: 'wallet:read' },
  { method: 'GET', path: '/partner/wallet/ledger', scope: 'wallet:read' },
  { method: 'POST', path: '/partner/orders', scope: 'orders:write', body: unknownPlanOrder, accepted: { status: 422, code: 'PLAN_NOT_AVAILABLE' } },
  { method: 'GET', path: '/partner/orders', scope: 'orders:read' },
  { method: 'GET', path: `/partner/orders/${unknownOrderId}`, scope: 'orders:read', accepted: { status: 404, code: 'ORDER_NOT_FOUND' } },
  { method: 'POST', path: `/partner/orders/${unknownOrderId}/cancel`, scope: 'orders:write', accepted: { status: 404, code: 'ORDER_NOT_FOUND' } },
  {
    method: 'POST',
    path: '/partner/orders',
    scope: 'orders:write',
    body: { ...unknownPlanOrder, clientRequestId: 'security-table-topup', iccid: unknownIccid },
    accepted: { status: 404, code: 'ESIM_NOT_FOUND' },
  },
  { method: 'GET', path: '/partner/esims', scope: 'orders:read' },
  { method: 'GET', path: `/partner/esims/${unknownIccid}`, scope: 'orders:read', accepted: { status: 404, code: 'ESIM_NOT_FOUND' } },
  { method: 'GET', path: `/partner/catalog?iccid=${unknownIccid}`, scope: 'catalog:read', accepted: { status: 404, code: 'ESIM_NOT_FOUND' } },
  // §14's test helpers: the table's keys are live, so an authorized call hears 403 TEST_MODE_ONLY.
  { method: 'POST', path: `/partner/test/esims/${unknownIccid}/install`, scope: 'orders:write', accepted: { status: 403, code: 'TEST_MODE_ONLY' } },
  { method: 'POST', path: `/partner/test/esims/${unknownIccid}/usage`, scope: 'orders:write', body: { addMb: 1 }, accepted: { status: 403, code: 'TEST_MODE_ONLY' } },
];

export interface PortalRoute {
  method: 'GET' | 'PATCH' | 'POST';
  path: string;
  body?: unknown;
}

export const portalRoutes: PortalRoute[] = [
  { method: 'GET', path: '/partner/me' },
  { method: 'PATCH', path: '/partner/me', body: { webhookUrl: null } },
  { method: 'GET', path: '/partner/me/catalog' },
  { method: 'GET', path: '/partner/me/wallet' },
  { method: 'GET', path: '/partner/me/wallet/ledger' },
  { method: 'GET', path: '/partner/me/orders' },
  { method: 'GET', path: '/partner/me/esims' },
  { method: 'GET', path: '/partner/me/webhook-endpoints' },
  // §14: the test signing secret (answers 200, allowed in any open status).
  { method: 'POST', path: '/partner/me/test-webhook-secret' },
];

export const allScopes: Scope[] = ['catalog:read', 'orders:write', 'orders:read', 'wallet:read'];
