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
}

export const apiKeyRoutes: ApiKeyRoute[] = [{ method: 'GET', path: '/partner/catalog', scope: 'catalog:read' }];

export interface PortalRoute {
  method: 'GET' | 'PATCH';
  path: string;
  body?: unknown;
}

export const portalRoutes: PortalRoute[] = [
  { method: 'GET', path: '/partner/me' },
  { method: 'PATCH', path: '/partner/me', body: { webhookUrl: null } },
];

export const allScopes: Scope[] = ['catalog:read', 'orders:write', 'orders:read', 'wallet:read'];
