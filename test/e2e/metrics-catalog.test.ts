// Protects what an SRE pages on: every metric the alert rules and the Grafana dashboard query is exported by the running services once orders, a failure, a retry and a webhook have gone through; every series says which service and build it came from; probes and scrapes stay out of the info log.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { services } from '../../scripts/launcher/services.js';
import { exportedBase, exportedMetrics, queriedMetrics } from '../support/promql.js';
import { admin, api, call, platform, portalToken, until, withKey, withToken } from './support/client.js';
import { finalOrder, fundedPartner, orderBody, planWithSku } from './support/money.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** /metrics of every process: each service's health port, and the gateway's admin listener. */
async function scrapeAll(): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  for (const entry of services) {
    const port = platform.ports[entry.name]!.health ?? platform.ports[entry.name]!.admin!;
    const answer = await call(`http://127.0.0.1:${port}`, '/metrics');
    expect(answer.status, `${entry.name} /metrics`).toBe(200);
    pages.set(entry.name, answer.text);
  }
  return pages;
}

let receiver: Server;
let delivered = 0;
let pages: Map<string, string>;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      delivered += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  // A partner whose webhooks land here, funded (wallet.credited is delivered: webhook lag).
  const partner = await fundedPartner(0);
  const token = await portalToken(partner.email, partner.password);
  expect((await api('/partner/me', { method: 'PATCH', body: { webhookUrl: receiverUrl }, ...withToken(token) })).status).toBe(200);
  const topup = await admin(`/partners/${partner.id}/wallet/topups`, { body: { amount: 100_000, reference: `WIRE-${randomBytes(4).toString('hex')}` } });
  expect(topup.status).toBe(201);

  // One order provisioned, one the supplier refuses for good (refund), one it fails twice first (redeliveries).
  const plan = (await api('/partner/catalog?limit=1', withKey(partner.apiKey))).body.data[0];
  const outcomes: string[] = [];
  for (const planId of [plan.id as string, await planWithSku('FAIL'), await planWithSku('FLAKY')]) {
    const created = await api('/partner/orders', { body: orderBody(planId), ...withKey(partner.apiKey) });
    expect(created.status, created.text).toBe(201);
    outcomes.push((await finalOrder(partner.apiKey, created.body.id)).status as string);
  }
  expect(outcomes).toEqual(['provisioned', 'failed', 'provisioned']);
  await until(async () => (delivered > 0 ? true : undefined), 'a webhook delivered to the receiver', 20_000);

  // Counters and histograms appear once recorded; the relay and the pollers report within a scrape or two.
  pages = await until(
    async () => {
      const scraped = await scrapeAll();
      const all = [...scraped.values()].join('\n');
      return /^webhook_delivery_lag_ms_bucket/m.test(all) && /^events_redelivered_total/m.test(all) ? scraped : undefined;
    },
    'the webhook lag and a redelivery on /metrics',
    20_000,
    500,
  );
}, 180_000);

afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe('the metrics catalog', () => {
  it('when the alert rules and the dashboard query a metric, then a running service exports it', () => {
    const exported = new Set([...pages.values()].flatMap((page) => [...exportedMetrics(page)]));
    const queried = queriedMetrics(root);
    expect(queried.size).toBeGreaterThan(15);
    const missing = [...queried.entries()].filter(([name]) => !exported.has(name) && !exported.has(exportedBase(name))).map(([name, where]) => `${name} (${where.join('; ')})`);
    expect(missing, 'metrics queried but exported by no service').toEqual([]);
  });

  it.each(services.map((entry) => entry.name))('when %s is scraped, then every series carries its service name, version and environment', (name) => {
    const samples = pages
      .get(name)!
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('target_info'));
    expect(samples.length).toBeGreaterThan(10);
    const unlabelled = samples.filter((line) => !line.includes(`service_name="${name}"`) || !/service_version="[^"]+"/.test(line) || !line.includes('deployment_environment="test"'));
    expect(unlabelled.slice(0, 3)).toEqual([]);
  });

  it('when a service with a database runs, then its pool, its outbox age and the runtime are on /metrics', () => {
    for (const entry of services.filter((candidate) => candidate.needs.includes('postgres'))) {
      const page = pages.get(entry.name)!;
      for (const metric of ['db_pool_connections', 'db_pool_idle_connections', 'db_pool_waiting_requests', 'db_pool_max_connections']) {
        expect(page, `${entry.name} ${metric}`).toMatch(new RegExp(`^${metric}\\{[^}]*pool="${entry.name}"`, 'm'));
      }
      for (const metric of ['nodejs_eventloop_delay_p99_seconds', 'nodejs_heap_used_bytes', 'process_resident_memory_bytes']) {
        expect(page, `${entry.name} ${metric}`).toMatch(new RegExp(`^${metric}\\{`, 'm'));
      }
    }
    expect(pages.get('orders')).toMatch(/^outbox_oldest_unpublished_age_seconds\{[^}]*schema="orders"/m);
    expect(pages.get('provisioning')).toMatch(/^jetstream_consumer_pending_messages\{[^}]*consumer="/m);
  });
});

describe('request logs', () => {
  it('when probes and scrapes hit the gateway, then they are not logged at info, while partner requests are', async () => {
    const publicPort = platform.ports.gateway!.http!;
    for (const path of ['/healthz', '/readyz', '/metrics']) expect((await call(`http://127.0.0.1:${publicPort}`, path)).status).toBe(200);
    await api('/partner/catalog?limit=1', withKey('sk_live_000000000000_nope'));
    const lines = await until(
      async () => {
        const text = readFileSync(join(platform.logDir, 'gateway.log'), 'utf8');
        const requests = text
          .split('\n')
          .filter((line) => line.includes('"msg":"request"'))
          .map((line) => JSON.parse(line) as { route?: string; level: number });
        return requests.some((line) => line.route === '/api/v1/partner/catalog') ? requests : undefined;
      },
      'the partner request in the gateway log',
      5_000,
    );
    expect(lines.filter((line) => ['/healthz', '/readyz', '/metrics'].includes(line.route ?? ''))).toEqual([]);
    expect(lines.find((line) => line.route === '/api/v1/partner/catalog')?.level).toBe(30);
  });
});
