// Protects §4's read-only portal views of money: with the JWT, an approved partner sees exactly what its API key sees, other accounts get 403 ACCOUNT_NOT_ACTIVE, and other partners' orders stay 404.
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, api, asKey, expectInvalidField, expectProblem, portalToken, registerPartner, withToken, type Onboarded } from './support/client.js';
import { finalOrder, fundedPartner, orderBody, planWithSku } from './support/money.js';

let partner: Onboarded;
let token: string;
let orderId: string;

beforeAll(async () => {
  partner = await fundedPartner(3_000, 'premium');
  token = await portalToken(partner.email, partner.password);
  const planId = await planWithSku('E2E-PORTAL', 1_000);
  const answer = await asKey(partner.apiKey, '/partner/orders', { body: orderBody(planId) });
  expect(answer.status, answer.text).toBe(201);
  orderId = answer.body.id;
  await finalOrder(partner.apiKey, orderId);
});

const portal = (path: string) => api(`/partner/me${path}`, withToken(token));

describe('an approved partner in the portal', () => {
  it('when it reads its wallet, ledger, orders, one order and catalog, then each answer equals its API-key twin', async () => {
    for (const path of ['/wallet', '/wallet/ledger?limit=5', '/orders', '/orders?status=provisioned&limit=1', `/orders/${orderId}`, '/catalog?country=FR&limit=10']) {
      const [twin, mine] = await Promise.all([asKey(partner.apiKey, `/partner${path}`), portal(path)]);
      expect(mine.status, `${path}: ${mine.text}`).toBe(200);
      expect(mine.body, path).toEqual(twin.body);
    }
    const order = (await portal(`/orders/${orderId}`)).body;
    expect(order.esim.qrCode).toMatch(/^data:image\/png;base64,/);
    expect((await portal('/wallet')).body.balance).toBe(3_000 - 1_100);
  });

  it('when its query or order id is bad, then the same errors as the API-key twins', async () => {
    expectInvalidField(await portal('/orders?status=bogus'), 'status');
    expectInvalidField(await portal('/wallet/ledger?limit=0'), 'limit');
    expectInvalidField(await portal('/catalog?country=XX'), 'country');
    for (const id of ['nonsense', 'ord_01jzzzzzzzzzzzzzzzzzzzzzzz']) expectProblem(await portal(`/orders/${id}`), 404, 'ORDER_NOT_FOUND');
  });

  it('when it asks for another partner’s order, then 404 ORDER_NOT_FOUND', async () => {
    const other = await fundedPartner(2_000);
    const planId = await planWithSku('E2E-PORTAL-OTHER', 500);
    const theirs = await asKey(other.apiKey, '/partner/orders', { body: orderBody(planId) });
    expectProblem(await portal(`/orders/${theirs.body.id}`), 404, 'ORDER_NOT_FOUND');
    expect((await portal('/orders')).body.data.map((o: { id: string }) => o.id)).toEqual([orderId]);
  });

  it('when it tries to place an order with the JWT, then there is no such portal route, and the API-key route refuses the JWT', async () => {
    expectProblem(await api('/partner/me/orders', { body: orderBody('plan_x'), ...withToken(token) }), 404, 'NOT_FOUND');
    expectProblem(await api('/partner/orders', { body: orderBody('plan_x'), ...withToken(token) }), 401, 'INVALID_TOKEN');
  });
});

describe('accounts that are not approved', () => {
  const views = ['/wallet', '/wallet/ledger', '/orders', `/orders/ord_01jzzzzzzzzzzzzzzzzzzzzzzz`, '/catalog'];

  it('when a pending partner opens the money views, then 403 ACCOUNT_NOT_ACTIVE on each, while its account view still answers', async () => {
    const { application, answer } = await registerPartner();
    expect(answer.status).toBe(201);
    const pendingToken = await portalToken(application.email, application.password);
    for (const path of views) expectProblem(await api(`/partner/me${path}`, withToken(pendingToken)), 403, 'ACCOUNT_NOT_ACTIVE');
    expect((await api('/partner/me', withToken(pendingToken))).body.status).toBe('pending');
  });

  it('when an approved partner is suspended, then its portal token gets 403 ACCOUNT_NOT_ACTIVE at once, and 200 again when reinstated', async () => {
    const suspended = await fundedPartner(100);
    const suspendedToken = await portalToken(suspended.email, suspended.password);
    expect((await api('/partner/me/wallet', withToken(suspendedToken))).status).toBe(200);
    await admin(`/partners/${suspended.id}/suspend`, { method: 'POST' });
    for (const path of views) expectProblem(await api(`/partner/me${path}`, withToken(suspendedToken)), 403, 'ACCOUNT_NOT_ACTIVE');
    await admin(`/partners/${suspended.id}/reinstate`, { method: 'POST' });
    expect((await api('/partner/me/wallet', withToken(suspendedToken))).body.balance).toBe(100);
  });
});
