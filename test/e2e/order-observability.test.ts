// Protects what an SRE relies on for orders: one order is one trace across every service it touches, customers' contact details never appear in clear in a span, and the §12 business counters move.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, call, control, platform, until, withKey } from './support/client.js';
import { finalOrder, fundedPartner, orderBody } from './support/money.js';

interface Span {
  service: string;
  name: string;
  traceId: string;
  attributes: Record<string, unknown>;
}

const metricsOf = async (service: string) => (await call(`http://127.0.0.1:${platform.ports[service]!.health}`, '/metrics')).text;
const counter = (text: string, name: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(name) && !line.startsWith('#'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);

describe('one order, one trace', () => {
  it('when a partner places an order with a traceparent, then gateway, orders, catalog, wallet, provisioning, webhooks and the supplier call all record spans in that trace, with their gRPC calls and statements', async () => {
    const partner = await fundedPartner(100_000);
    const plan = (await api('/partner/catalog?country=FR&limit=1', withKey(partner.apiKey))).body.data[0];
    const traceId = randomBytes(16).toString('hex');
    const email = `traced-${randomBytes(3).toString('hex')}@example.com`;
    const phoneNumber = '+447700900123';
    const created = await api('/partner/orders', {
      body: { ...orderBody(plan.id), email, phoneNumber },
      headers: { authorization: `Bearer ${partner.apiKey}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(created.status).toBe(201);
    expect((await finalOrder(partner.apiKey, created.body.id)).status).toBe('provisioned');

    const expected = ['gateway', 'orders', 'catalog', 'wallet', 'provisioning', 'webhooks', 'supplier-sim'];
    const spans = await until(
      async () => {
        const found = (await control<Span[]>(`/spans?traceId=${traceId}`)).body;
        const services = new Set(found.map((s) => s.service));
        // The wallet appears twice in the saga: the reservation (gRPC) and the capture (event).
        const walletSpans = found.filter((s) => s.service === 'wallet').length;
        // Each hop's own statements are in it too (exported with the hop's other spans, maybe in a later batch).
        const statements = ['orders', 'wallet', 'provisioning', 'webhooks'].every((service) => found.some((s) => s.service === service && s.name.startsWith('pg.query:')));
        // And the gRPC call that placed it, on both sides.
        const placed = ['gateway', 'orders'].every((service) => found.some((s) => s.service === service && s.name === 'grpc.orders.v1.OrdersService/CreateOrder'));
        return expected.every((name) => services.has(name)) && walletSpans >= 2 && statements && placed ? found : undefined;
      },
      `spans of ${expected.join(', ')} in the partner's trace`,
      20_000,
    );
    expect([...new Set(spans.map((s) => s.service))]).toEqual(expect.arrayContaining(expected));
    // The supplier call leaves provisioning as an HTTP client span.
    expect(spans.some((s) => s.service === 'provisioning' && /POST/.test(s.name))).toBe(true);
    // No span carries the customer's e-mail or phone number in clear.
    const dump = JSON.stringify(spans);
    expect(dump).not.toContain(email);
    expect(dump).not.toContain(phoneNumber);
    expect(dump).not.toContain(partner.apiKey);
  });
});

describe('business metrics', () => {
  it('when an order is provisioned, then orders and wallet count it on /metrics', async () => {
    const before = { created: counter(await metricsOf('orders'), 'orders_created_total'), debits: counter(await metricsOf('wallet'), 'wallet_debits_total') };
    const partner = await fundedPartner(100_000);
    const plan = (await api('/partner/catalog?limit=1', withKey(partner.apiKey))).body.data[0];
    const created = await api('/partner/orders', { body: orderBody(plan.id), ...withKey(partner.apiKey) });
    expect(created.status).toBe(201);
    await finalOrder(partner.apiKey, created.body.id);
    const orders = await metricsOf('orders');
    const wallet = await metricsOf('wallet');
    expect(counter(orders, 'orders_created_total')).toBeGreaterThan(before.created);
    expect(counter(orders, 'orders_provisioned_total')).toBeGreaterThan(0);
    expect(counter(wallet, 'wallet_debits_total')).toBeGreaterThan(before.debits);
    expect(orders).toMatch(/^outbox_backlog/m);
    expect(orders).toMatch(/^events_consumed_total/m);
  });
});
