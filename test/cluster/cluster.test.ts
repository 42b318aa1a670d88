// Protects the platform as operators run it (JetStream R3 on three servers, a Redis Cluster, two replicas of every service): under a mixed order load from three partners, losing the stream leader, a Redis master and every replica in turn costs clients only retryable answers, and afterwards every order is final with its money, events and webhooks exact.
import { randomInt } from 'node:crypto';
import http, { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, apiKeyPattern, call, platform, portalToken, until, waitForMail, withKey, withToken, type Onboarded } from '../e2e/support/client.js';
import { db, fundedPartner, ledgerViolations, orderBody, partnerEventsInStream, planWithSku } from '../e2e/support/money.js';
import { explainUndelivered } from './support/diagnose.js';
import { disrupt, expectControl, report } from './support/disruptions.js';
import { cluster, observations, placeOrder, startProbe } from './support/load.js';

// Sized for ~6 minutes on 2 shared cores, start-up included: 300 orders, one started every 400 ms (two minutes of load),
// which outlasts the NATS and Redis disruptions and reaches into the rolling restart (two waves of 14 processes).
const orderCount = 300;
const orderEveryMs = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A fresh connection per request: a kept-alive socket that the server closes as a request goes out ("socket hang up") would
// fail a set-up or control call for a reason that is the test's, not the platform's. The gateways' drops are counted apart (load.ts).
http.globalAgent = new http.Agent({ keepAlive: false });

const pool = db();
const hooks = new Map<string, Set<string>>();
let receiver: Server;
let receiverUrl: string;
afterAll(async () => {
  await pool.end();
  receiver?.close();
});

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const partnerId = req.url?.split('/')[2] ?? '';
    const id = String(req.headers['webhook-id'] ?? '');
    req.resume().on('end', () => {
      if (!hooks.has(partnerId)) hooks.set(partnerId, new Set());
      hooks.get(partnerId)!.add(id);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

/** Set-up calls on a freshly started, busy platform may meet a cold backend's 503 once: a new attempt (a new partner) then. */
async function retried<T>(make: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await make();
    } catch (error) {
      if (attempt >= 5 || !/answered 503/.test((error as Error).message)) throw error;
      await sleep(2_000);
    }
  }
}

async function partnerWithWebhooks(): Promise<Onboarded> {
  const partner = await fundedPartner(50_000_000);
  const token = await portalToken(partner.email, partner.password);
  const patched = await call(platform.publicUrl, '/api/v1/partner/me', { method: 'PATCH', body: { webhookUrl: `${receiverUrl}/hooks/${partner.id}` }, ...withToken(token) });
  expect(patched.status, patched.text).toBe(200);
  return partner;
}

async function issueKey(partner: Onboarded, count: number): Promise<{ key: string; keyId: string }> {
  const issued = await admin(`/partners/${partner.id}/keys`, { body: {} });
  expect(issued.status, issued.text).toBe(201);
  const mails = await waitForMail(partner.email, 'A new API key was issued', { count });
  const mail = mails.find((m) => m.text.includes(issued.body.prefix as string))!;
  return { key: apiKeyPattern.exec(mail.text)![1]!, keyId: issued.body.id as string };
}

/** The server that leads the orders stream now, and whether it is also the JetStream meta leader. */
async function ordersStreamLeader(): Promise<{ leader: string; meta: string }> {
  const nc = await connect({ servers: platform.natsUrl.split(',') });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(`${platform.namespace.toUpperCase()}_ORDERS`);
    expect(info.config.num_replicas, 'the orders stream is replicated three ways').toBe(3);
    const { leader: meta } = await expectControl<{ leader: string }>('/nats/meta-leader', 'GET');
    return { leader: info.cluster!.leader!, meta };
  } finally {
    await nc.close();
  }
}

describe('the platform on clusters, nodes lost under load', () => {
  it('when the stream leader, a Redis master and every replica in turn go down during 300 mixed orders, then every order is final once with its money, events and webhooks exact', async () => {
    const partners = [await retried(partnerWithWebhooks), await retried(partnerWithWebhooks), await retried(partnerWithWebhooks)];
    const observer = await retried(() => fundedPartner(0));
    const plans = { normal: (await admin('/plans?active=true&limit=1')).body.data[0].id as string, fail: await retried(() => planWithSku('FAIL')), flaky: await retried(() => planWithSku('FLAKY')) };
    const bodies = Array.from({ length: orderCount }, (_, i) => {
      const kind = i % 5 === 0 ? 'fail' : i % 5 === 1 ? 'flaky' : 'normal';
      return { kind, partner: partners[i % 3]!, body: orderBody(plans[kind], `clu-${i}-${randomInt(1e9)}`) };
    });

    const probe = startProbe(observer.apiKey);
    const startedAt = Date.now();
    const answers = new Map<string, { status: number; orderId?: string; code?: string }>();
    const load = Promise.all(
      bodies.map(async ({ partner, body }, i) => {
        await sleep(Math.max(0, startedAt + i * orderEveryMs - Date.now()));
        const answer = await placeOrder(partner.apiKey, body, i);
        answers.set(body.clientRequestId, { status: answer.status, orderId: answer.body?.id, code: answer.body?.code });
      }),
    );

    const disruptions = (async () => {
      await sleep(10_000);
      await disrupt('JetStream stream leader SIGKILLed, restarted after 2 s', async () => {
        const { leader, meta } = await ordersStreamLeader();
        await expectControl(`/nats/${leader}/kill`);
        await sleep(2_000);
        await expectControl(`/nats/${leader}/restart`);
        return `${leader} (orders stream leader${leader === meta ? ' and meta leader' : `; meta leader ${meta}`})`;
      });
      const { masters } = await expectControl<{ masters: number[] }>('/redis/masters', 'GET');
      await disrupt('Redis master SIGKILLed (its replica takes over)', async () => {
        await expectControl(`/redis/${masters[0]}/kill`);
        await expectControl('/redis/healthy');
        return `port ${masters[0]}`;
      });
      // The old master comes back as a replica of the new one, so the cluster is whole again for what follows.
      await expectControl(`/redis/${masters[0]}/restart`);
      for (const replica of [0, 1]) {
        await disrupt(`rolling restart, replica ${'AB'[replica]} of every service (SIGTERM, start)`, async () => {
          const steps = await expectControl<Record<string, { downMs: number; readyMs: number }>>(`/replicas/${replica}/restart`);
          const slowest = Object.entries(steps).sort((a, b) => b[1].readyMs - a[1].readyMs)[0]!;
          return `${Object.keys(steps).length} processes; slowest ${slowest[0]}: stopped in ${slowest[1].downMs} ms, ready again in ${slowest[1].readyMs} ms`;
        });
      }
    })();
    await Promise.all([load, disruptions]);
    await probe.stop();

    const rows = report();
    process.stderr.write(`\ncluster disruptions:\n${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);

    // Every order got a final answer (after retries), and no answer was anything but retryable on the way.
    const unexpected = observations.filter((o) => ![200, 201, 503, 0, 409, 429].includes(o.status));
    expect(unexpected, 'no answer outside the retryable set').toEqual([]);
    expect([...answers.values()].filter((a) => a.status !== 201 && a.status !== 200), 'every order accepted').toEqual([]);

    for (const partner of partners) await expectPartnerSettled(partner, bodies.filter((b) => b.partner === partner));
    await expectRevocationOnBothGateways(partners[0]!);
    await expectSharedRateLimit(partners[1]!);
  }, 1_200_000);
});

async function expectPartnerSettled(partner: Onboarded, placed: Array<{ kind: string; body: { clientRequestId: string } }>) {
  const kindOf = new Map(placed.map((p) => [p.body.clientRequestId, p.kind]));
  const settled = await until(
    async () => {
      const all: any[] = [];
      for (let page = 1; ; page++) {
        const { body } = await admin(`/orders?partnerId=${partner.id}&limit=100&page=${page}`);
        all.push(...body.data);
        if (page >= body.pagination.totalPages) break;
      }
      return all.length === placed.length && all.every((o) => o.status !== 'processing') ? all : undefined;
    },
    `every order of ${partner.id} final`,
    180_000,
    500,
  );
  for (const order of settled) expect(order.status, `${kindOf.get(order.clientRequestId)} order ${order.id}`).toBe(kindOf.get(order.clientRequestId) === 'fail' ? 'failed' : 'provisioned');
  expect(await ledgerViolations(pool, partner.id)).toEqual([]);
  const { rows } = await pool.query<{ type: string; n: number }>('SELECT type, count(*)::int AS n FROM wallet.ledger_entries WHERE partner_id = $1 GROUP BY type', [partner.id]);
  const counts = Object.fromEntries(rows.map((r) => [r.type, r.n]));
  expect(counts.order_debit, 'one debit per order').toBe(placed.length);
  expect(counts.refund, 'one refund per failed order').toBe(settled.filter((o) => o.status === 'failed').length);

  // Events: per order one payment.paid and one provision.*, no id twice, and each one delivered to the partner's webhook.
  let events = await partnerEventsInStream(partner.id);
  await until(async () => ((events = await partnerEventsInStream(partner.id)).length >= settled.length * 2 ? true : undefined), 'partner events in the stream', 60_000, 500);
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  for (const order of settled) expect(events.filter((e) => e.orderId === order.id).map((e) => e.type)).toEqual(['payment.paid', order.status === 'provisioned' ? 'provision.provisioned' : 'provision.failed']);
  // The order events only: the partner's wallet was credited before its webhook URL was set, and an event with no
  // endpoint to go to is rightly kept undelivered (status no_endpoint), not sent later.
  const missing = () => events.filter((e) => e.orderId !== null && !hooks.get(partner.id)?.has(e.id)).map((e) => e.id);
  await until(async () => (missing().length === 0 ? true : undefined), 'every partner event delivered', 120_000, 500).catch(() => undefined);
  const undelivered = missing();
  if (undelivered.length > 0) process.stderr.write(`\nundelivered events of ${partner.id}:\n${await explainUndelivered(pool, undelivered)}\n`);
  expect(undelivered, 'event ids not delivered to the webhook').toEqual([]);
}

async function expectRevocationOnBothGateways(partner: Onboarded) {
  const { key, keyId } = await issueKey(partner, 1);
  for (const url of cluster.gatewayUrls) expect((await call(url, '/api/v1/partner/orders?limit=1', withKey(key))).status).toBe(200);
  const revoked = await admin(`/partners/${partner.id}/keys/${keyId}/revoke`, { method: 'POST' });
  expect(revoked.status, revoked.text).toBe(200);
  const deadline = Date.now() + 2_000;
  const refused = new Set<string>();
  while (refused.size < 2 && Date.now() < deadline) {
    for (const url of cluster.gatewayUrls) if ((await call(url, '/api/v1/partner/orders?limit=1', withKey(key))).status === 401) refused.add(url);
    await sleep(50);
  }
  expect([...refused].sort(), 'the revoked key refused by both gateway replicas within 2 s').toEqual([...cluster.gatewayUrls].sort());
}

async function expectSharedRateLimit(partner: Onboarded) {
  const { key } = await issueKey(partner, 1);
  const statuses: number[] = [];
  for (let batch = 0; batch < 15; batch++) {
    statuses.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => call(cluster.gatewayUrls[i % 2]!, '/api/v1/partner/catalog?limit=1', withKey(key)).then((a) => a.status)))));
  }
  expect(statuses.filter((s) => s === 200), 'two replicas share one window of 100').toHaveLength(100);
  expect(statuses.filter((s) => s === 429)).toHaveLength(50);
}
