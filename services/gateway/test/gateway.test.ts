// Protects the gateway's own behaviour without any backend: readiness on its own dependencies only, 503 for a backend that is down, 404 for ids that cannot exist, request ids on every answer, and a true OpenAPI document of the money routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLonelyGateway, type LonelyGateway } from './support/lonelyGateway.js';

let gateway: LonelyGateway;
let publicUrl: string;
let adminUrl: string;
let adminToken: string;

beforeAll(async () => {
  gateway = await startLonelyGateway('gwtest');
  ({ publicUrl, adminUrl, adminToken } = gateway);
});

afterAll(async () => gateway?.stop());

async function get(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // metrics are text
  }
  return { status: response.status, headers: response.headers, body };
}

const asAdmin = (path: string, init: RequestInit = {}) =>
  get(`${adminUrl}/admin/v1${path}`, { ...init, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', ...init.headers } });

describe('readiness', () => {
  it('when every backend service is down, then both listeners are still ready: only Redis and NATS are checked', async () => {
    for (const base of [publicUrl, adminUrl]) {
      const ready = await get(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { redis: 'ok', nats: 'ok' } });
    }
  });
});

describe('a backend that is down', () => {
  it('when its routes are called, then 503 UNAVAILABLE as problem+json, for each backend', async () => {
    const answers = [
      await asAdmin('/plans'),
      await asAdmin('/orders'),
      await asAdmin('/partners'),
      await asAdmin('/partners/ptn_01jzzzzzzzzzzzzzzzzzzzzzzz/wallet'),
      await get(`${publicUrl}/api/v1/partner/catalog`, { headers: { 'x-api-key': `sk_live_abcdefabcdef_${'A'.repeat(40)}` } }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({ code: 'UNAVAILABLE', type: '/problems/unavailable', requestId: answer.headers.get('x-request-id') });
    }
  });

  it('when an id cannot name an order or a partner, then 404 at once, without asking the (down) service', async () => {
    for (const id of ['nonsense', 'ord_', `ord_${'z'.repeat(600)}`, 'ptn_01jzzzzzzzzzzzzzzzzzzzzzzz']) {
      const answer = await asAdmin(`/orders/${id}`);
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 404, code: 'ORDER_NOT_FOUND' });
    }
    for (const iccid of ['nonsense', '123', '8'.repeat(23), '8933000000000000001x']) {
      const answer = await asAdmin(`/esims/${iccid}`);
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 404, code: 'ESIM_NOT_FOUND' });
    }
    const wallet = await asAdmin('/partners/nonsense/wallet/topups', { method: 'POST', body: JSON.stringify({ amount: 1, reference: 'r' }) });
    expect({ status: wallet.status, code: wallet.body.code }).toEqual({ status: 404, code: 'PARTNER_NOT_FOUND' });
  });
});

describe('request ids', () => {
  it('when /metrics is read, then it carries the caller’s X-Request-Id like every other answer', async () => {
    const metrics = await get(`${publicUrl}/metrics`, { headers: { 'x-request-id': 'scrape-42' } });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('x-request-id')).toBe('scrape-42');
  });

  it('when a route is unknown, then the problem body carries the request id of the header', async () => {
    const answer = await get(`${adminUrl}/nope`);
    expect(answer.body).toEqual({ type: '/problems/not-found', title: 'Not found', status: 404, code: 'NOT_FOUND', detail: 'No route GET /nope.', requestId: answer.headers.get('x-request-id') });
  });
});

describe('the OpenAPI documents', () => {
  const statuses = (doc: any, path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();

  it('when the public document is read, then every money route lists each status it can answer, and the order view has exactly the §7 fields', async () => {
    const doc = (await get(`${publicUrl}/openapi.json`)).body;
    expect(statuses(doc, '/api/v1/partner/orders', 'post')).toEqual(['200', '201', '400', '401', '402', '403', '404', '409', '413', '415', '422', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/orders/{orderId}/cancel', 'post')).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/esims', 'get')).toEqual(['200', '400', '401', '403', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/esims/{iccid}', 'get')).toEqual(['200', '400', '401', '403', '404', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/me/esims/{iccid}', 'get')).toEqual(['200', '400', '401', '403', '404', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/catalog', 'get')).toEqual(['200', '400', '401', '403', '404', '429', '503']);
    expect(statuses(doc, '/supplier/v1/notifications', 'post')).toEqual(['200', '202', '400', '401', '413', '415', '503']);
    expect(doc.paths['/supplier/v1/notifications'].post.tags).toEqual(['Supplier']);
    expect(statuses(doc, '/api/v1/partner/orders/{orderId}', 'get')).toEqual(['200', '400', '401', '403', '404', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/me/orders/{orderId}', 'get')).toEqual(['200', '400', '401', '403', '404', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/wallet/ledger', 'get')).toEqual(['200', '400', '401', '403', '429', '503']);
    expect(Object.keys(doc.components.schemas.Order.properties).sort()).toEqual(
      [
        'clientRequestId',
        'kind',
        'iccid',
        'createdAt',
        'currency',
        'email',
        'esim',
        'failureReason',
        'id',
        'phoneNumber',
        'planId',
        'planName',
        'price',
        'status',
        'updatedAt',
        // Group orders (§7).
        'quantity',
        'unitPrice',
        'esims',
        'refundedAmount',
        // Test mode (§14).
        'livemode',
      ].sort(),
    );
    expect(statuses(doc, '/api/v1/partner/orders/quote', 'post')).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '422', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/test/wallet/credit', 'post')).toEqual(['201', '400', '401', '403', '413', '415', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/me/test/wallet/credit', 'post')).toEqual(['201', '400', '401', '403', '413', '415', '429', '503']);
    expect(Object.keys(doc.paths['/api/v1/partner/orders/{orderId}/esims.csv'].get.responses['200'].content)).toEqual(['text/csv']);
    expect(JSON.stringify(doc.components.schemas.Plan)).not.toMatch(/profileType/);
    expect(Object.keys(doc.components.schemas.OrderEsim.properties)).toContain('appleInstallUrl');
    expect(Object.keys(doc.components.schemas.Esim.properties).sort()).toEqual(
      ['iccid', 'orderId', 'status', 'smdpAddress', 'matchingId', 'activationCode', 'appleInstallUrl', 'countries', 'region', 'usage', 'bundles', 'eid', 'lastError', 'suspended', 'createdAt', 'updatedAt', 'livemode'].sort(),
    );
    expect(statuses(doc, '/api/v1/partner/esims/{iccid}/suspend', 'post')).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '429', '503']);
    expect(statuses(doc, '/api/v1/partner/esims/{iccid}/resume', 'post')).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '429', '503']);
    expect(JSON.stringify(doc)).not.toMatch(/supplierReference|supplierSku|floorPrice|AdminOrder/);
  });

  it('when the admin document is read, then wallet and order routes list their statuses', async () => {
    const doc = (await get(`${adminUrl}/openapi.json`)).body;
    // Every admin route documents 403 OPERATOR_ROLE_REQUIRED (§10).
    expect(statuses(doc, '/admin/v1/partners/{id}/wallet/topups', 'post')).toEqual(['200', '201', '400', '401', '403', '404', '413', '415', '503']);
    expect(statuses(doc, '/admin/v1/partners/{id}/wallet/adjustments', 'post')).toEqual(['201', '400', '401', '402', '403', '404', '413', '415', '503']);
    expect(statuses(doc, '/admin/v1/orders/{id}', 'get')).toEqual(['200', '400', '401', '403', '404', '503']);
    expect(statuses(doc, '/admin/v1/esims', 'get')).toEqual(['200', '400', '401', '403', '503']);
    expect(statuses(doc, '/admin/v1/esims/{iccid}', 'get')).toEqual(['200', '400', '401', '403', '404', '503']);
    expect(statuses(doc, '/admin/v1/operators', 'post')).toEqual(['201', '400', '401', '403', '413', '415', '503']);
    expect(doc.paths['/supplier/v1/notifications']).toBeUndefined();
    expect(Object.keys(doc.components.schemas.AdminOrder.properties)).toEqual(expect.arrayContaining(['partnerId', 'supplierReference', 'livemode']));
    // Test mode (§14): operators' lists take livemode, and the admin views say it.
    for (const path of ['/admin/v1/orders', '/admin/v1/esims', '/admin/v1/partners/{id}/wallet']) {
      expect(doc.paths[path].get.parameters.map((p: { name: string }) => p.name), path).toContain('livemode');
    }
    expect(Object.keys(doc.components.schemas.AdminEsim.properties)).toContain('livemode');
  });
});
