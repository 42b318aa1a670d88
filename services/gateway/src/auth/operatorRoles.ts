import type { OperatorRole } from '@esim/vocabulary';

/**
 * The one table of admin routes and the role each needs (contract §10), by
 * `METHOD /admin/v1/path` exactly as the route is registered (`:id`
 * parameters). The rules: `viewer` for every read; `support` for partner
 * review, suspension, keys, webhook-secret rotation, webhook retries and
 * dead-letter redrive; `finance` for wallet top-ups and adjustments; `admin`
 * for the rest. A route missing from this table needs `admin`, so a new
 * route is closed until a row here opens it: add one row per route (HEAD
 * follows its GET). `test/e2e/operator-roles.test.ts` calls every admin route
 * with every role against this table.
 */
export const routeRoles: Readonly<Record<string, OperatorRole>> = {
  // Reads (viewer).
  'GET /admin/v1/partners': 'viewer',
  'GET /admin/v1/partners/:id': 'viewer',
  'GET /admin/v1/partners/:id/keys': 'viewer',
  'GET /admin/v1/partners/:id/wallet': 'viewer',
  'GET /admin/v1/plans': 'viewer',
  'GET /admin/v1/plans/:id': 'viewer',
  'GET /admin/v1/orders': 'viewer',
  'GET /admin/v1/orders/:id': 'viewer',
  'GET /admin/v1/esims': 'viewer',
  'GET /admin/v1/esims/:iccid': 'viewer',
  'GET /admin/v1/webhook-deliveries': 'viewer',
  'GET /admin/v1/dead-letters': 'viewer',
  'GET /admin/v1/audit': 'viewer',
  'GET /admin/v1/operators': 'viewer',
  'GET /admin/v1/operators/me': 'viewer',
  'GET /admin/v1/partners/:id/webhook-endpoints': 'viewer',
  'GET /admin/v1/reconciliation': 'viewer',
  // Partner review, suspension, keys, secret rotation, retries, redrive (support).
  'POST /admin/v1/partners/:id/approve': 'support',
  'POST /admin/v1/partners/:id/reject': 'support',
  'POST /admin/v1/partners/:id/suspend': 'support',
  'POST /admin/v1/partners/:id/reinstate': 'support',
  'POST /admin/v1/partners/:id/keys': 'support',
  'POST /admin/v1/partners/:id/keys/:keyId/revoke': 'support',
  'POST /admin/v1/partners/:id/webhook-secret/rotate': 'support',
  'POST /admin/v1/webhook-deliveries/:id/retry': 'support',
  'POST /admin/v1/dead-letters/redrive': 'support',
  // A partner's webhook endpoints (§9): the same work as secret rotation and retries.
  'POST /admin/v1/partners/:id/webhook-endpoints': 'support',
  'PATCH /admin/v1/partners/:id/webhook-endpoints/:endpointId': 'support',
  'DELETE /admin/v1/partners/:id/webhook-endpoints/:endpointId': 'support',
  'POST /admin/v1/partners/:id/webhook-endpoints/:endpointId/rotate-secret': 'support',
  'POST /admin/v1/partners/:id/webhook-endpoints/:endpointId/recover': 'support',
  'POST /admin/v1/partners/:id/webhook-endpoints/:endpointId/test': 'support',
  // Money (finance).
  'POST /admin/v1/partners/:id/wallet/topups': 'finance',
  'POST /admin/v1/partners/:id/wallet/adjustments': 'finance',
  // The reconciliation (§11) releases held debits without an order: money work.
  'POST /admin/v1/reconciliation/run': 'finance',
  // Everything else is admin, listed where it helps a reader: tier and webhook URL changes, plans, operators.
  'PATCH /admin/v1/partners/:id': 'admin',
  'POST /admin/v1/plans': 'admin',
  'PATCH /admin/v1/plans/:id': 'admin',
  'POST /admin/v1/operators': 'admin',
  'PATCH /admin/v1/operators/:id': 'admin',
  'POST /admin/v1/operators/:id/revoke': 'admin',
};

/** The role a registered admin route needs; a route without a row needs `admin`. */
export function roleNeeded(method: string, routeUrl: string): OperatorRole {
  const verb = method === 'HEAD' ? 'GET' : method;
  return routeRoles[`${verb} ${routeUrl}`] ?? 'admin';
}
