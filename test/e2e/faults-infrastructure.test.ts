// #23, contract §11: money whole when the infrastructure goes away under load. A platform copy of this file's own
// runs on a Postgres server of its own and reaches NATS through a proxy that can stall the link. While a partner
// places orders as fast as it can, Postgres stops (every session terminated, connections refused) for a few seconds
// and comes back, as in a restart or a failover; or every byte to and from NATS is held for 8 s. Afterwards every
// order is final, debited exactly once, each webhook of each order arrived in order, the balance is the ledger's
// sum, the reconciliation finds nothing, and nothing a client sent was answered 500. What the client saw is in
// docs/deployment.md's fault table.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBinaries, startPrivatePostgres, startTcpProxy, type PrivatePostgres, type TcpProxy } from '@esim/testing';
import { startPlatform, type Platform } from '../../scripts/launcher/platform.js';
import { freePorts } from '../../scripts/launcher/ports.js';
import { repoRoot } from '../../scripts/launcher/supervisor.js';
import { apiKeyPattern, call, mailedToken, platform as shared, until, waitForMail, type Answer } from './support/client.js';
import { cleanUp } from './support/cleanUp.js';
import { ledgerViolations, orderBody } from './support/money.js';

const binaries = postgresBinaries();
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const namespace = `pgf${randomBytes(4).toString('hex')}`;
const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let database: PrivatePostgres;
let natsLink: TcpProxy;
let copy: Platform;
let pool: pg.Pool;
let receiver: Server;
const received: Array<{ id: string; type: string; orderId: string | undefined }> = [];
let publicUrl: string;
let adminUrl: string;

const api = (path: string, options: Parameters<typeof call>[2] = {}) => call(publicUrl, `/api/v1${path}`, options);
const admin = (path: string, options: Parameters<typeof call>[2] = {}) =>
  call(adminUrl, `/admin/v1${path}`, { ...options, headers: { authorization: `Bearer ${adminToken}`, ...options.headers } });

beforeAll(async () => {
  if ('missing' in binaries) return;
  database = await startPrivatePostgres();
  const nats = new URL(shared.natsUrl);
  natsLink = await startTcpProxy(nats.hostname, Number(nats.port || 4222));
  receiver = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const event = JSON.parse(raw);
      received.push({ id: event.id, type: event.type, orderId: event.data?.order?.id ?? event.data?.orderId });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

  const logDir = join(repoRoot, 'var', 'e2e', namespace);
  copy = await startPlatform({
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url.replace(/\/postgres$/, '/esim'),
      REDIS_URL: redisUrl,
      NATS_URL: `nats://${natsLink.host}:${natsLink.port}`,
      PLATFORM_NAMESPACE: namespace,
      SMTP_URL: shared.smtpUrl,
      ADMIN_TOKEN: adminToken,
      JWT_SECRET: randomBytes(32).toString('base64'),
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SUPPLIER_SIM_DATA_DIR: join(logDir, 'supplier-sim'),
      SUPPLIER_LATENCY_MS: '20',
      PROVISIONING_RETRY_BASE_MS: '200',
      PROVISIONING_RETRY_MAX_MS: '2000',
      ORDERS_SWEEP_AFTER_MS: '3000',
      ORDERS_SWEEP_INTERVAL_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,2s,5s',
      WEBHOOK_TIMEOUT_MS: '1500',
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
    },
    ports: await freePorts(),
    logDir,
    echo: () => {},
    readyTimeoutMs: 300_000,
  });
  publicUrl = `http://127.0.0.1:${copy.ports.gateway!.http!}`;
  adminUrl = `http://127.0.0.1:${copy.ports.gateway!.admin!}`;
  pool = new pg.Pool({ connectionString: database.url.replace(/\/postgres$/, '/esim'), max: 2 });
}, 360_000);

afterAll(async () => {
  if ('missing' in binaries) return;
  await copy?.stop().catch(() => {});
  await pool?.end().catch(() => {});
  receiver?.close();
  await natsLink?.close();
  if (database) await cleanUp({ namespace, databaseUrl: database.url.replace(/\/postgres$/, '/esim'), redisUrl, natsUrl: shared.natsUrl }).catch(() => {});
  database?.remove();
}, 120_000);

interface Partner {
  id: string;
  key: string;
  planId: string;
}

let partner: Partner;

/** A partner of this platform copy, onboarded as in life (verified e-mail, approval, key from the e-mail), funded, with its webhookUrl on the receiver. */
async function onboard(): Promise<Partner> {
  const email = `infra-${randomBytes(4).toString('hex')}@example.test`;
  const password = 'a-long-portal-password';
  const registered = await api('/partner/register', { body: { name: 'Fault Partner', email, company: 'Fault Travel', password } });
  expect(registered.status, registered.text).toBe(201);
  const verified = await api('/partner/verify-email', { body: { token: await mailedToken(email, 'verify-email') } });
  expect(verified.status, verified.text).toBe(200);
  expect((await admin(`/partners/${registered.body.id}/approve`, { body: {} })).status).toBe(200);
  const [approval] = await waitForMail(email, 'Your partner account is approved', { timeoutMs: 30_000 });
  const key = apiKeyPattern.exec(approval!.text)![1]!;
  const id = registered.body.id as string;
  expect((await admin(`/partners/${id}/wallet/topups`, { body: { amount: 1_000_000, reference: 'WIRE-INFRA' } })).status).toBe(201);
  const login = await api('/partner/login', { body: { email, password } });
  const hook = await api('/partner/me', { method: 'PATCH', body: { webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` }, headers: { authorization: `Bearer ${login.body.token}` } });
  expect(hook.status, hook.text).toBe(200);
  const plan = await admin('/plans', {
    body: { name: `Infra fault ${namespace}`, countries: ['FR'], region: null, dataMb: 1024, validityDays: 30, floorPrice: 700, retailPrice: 1400, supplierSku: `INF-${namespace}`, supplierCost: 300, active: true },
  });
  expect(plan.status, plan.text).toBe(201);
  return { id, key, planId: plan.body.id as string };
}

/**
 * Orders 4 at a time, each retried with its own clientRequestId as a careful partner does, until a final
 * answer; `fault` starts 500 ms in, and the lanes keep ordering until it is over and at least 24 orders are
 * placed, so the fault always meets requests in flight however fast the machine. Returns the order ids, how
 * often each status was seen, and how many answers came back while the fault lasted.
 */
async function burstThrough(fault: () => Promise<void>): Promise<{ orderIds: string[]; seen: Map<number, number>; duringFault: Map<number, number> }> {
  const seen = new Map<number, number>();
  const duringFault = new Map<number, number>();
  const orderIds: string[] = [];
  let faulting = false;
  let faultOver = false;
  const place = async (body: ReturnType<typeof orderBody>) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const answer: Answer = await api('/partner/orders', { body, headers: { authorization: `Bearer ${partner.key}` } }).catch(() => ({ status: 0, body: {}, headers: {}, text: '' }));
      seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
      if (faulting) duringFault.set(answer.status, (duringFault.get(answer.status) ?? 0) + 1);
      if (answer.status === 201 || answer.status === 200) return answer.body.id as string;
      if (Date.now() > deadline) throw new Error(`order ${body.clientRequestId}: last answer ${answer.status} ${answer.text}`);
      await sleep(answer.status === 429 ? 1_000 : 250);
    }
  };
  const lanes = Array.from({ length: 4 }, async () => {
    while (!faultOver || orderIds.length < 24) {
      orderIds.push(await place(orderBody(partner.planId)));
      await sleep(50);
    }
  });
  await sleep(500);
  faulting = true;
  await fault();
  faulting = false;
  faultOver = true;
  await Promise.all(lanes);
  return { orderIds, seen, duringFault };
}

/** After a fault: every order final and provisioned, one debit each, its webhooks in order, the ledger whole, the reconciliation empty. */
async function expectWhole(orderIds: string[], seen: Map<number, number>): Promise<void> {
  expect(new Set(orderIds).size).toBe(orderIds.length);
  expect(seen.get(500) ?? 0).toBe(0);
  expect([...seen.keys()].filter((status) => ![0, 200, 201, 409, 429, 503].includes(status))).toEqual([]);

  // Read in the orders' own table: hundreds of GETs a second would only measure the key's rate limit.
  const statuses = await until(
    async () => {
      const { rows } = await pool.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM orders.orders WHERE id = ANY($1) GROUP BY status`, [orderIds]);
      return rows.some((row) => row.status === 'processing' || row.status === 'pending') ? undefined : Object.fromEntries(rows.map((row) => [row.status, row.n]));
    },
    'every order to be final',
    180_000,
    1_000,
  );
  expect(statuses).toEqual({ provisioned: orderIds.length });

  const { rows } = await pool.query<{ order_id: string; n: number }>(
    `SELECT order_id, count(*)::int AS n FROM wallet.ledger_entries WHERE partner_id = $1 AND type = 'order_debit' AND order_id = ANY($2) GROUP BY order_id`,
    [partner.id, orderIds],
  );
  expect(rows).toHaveLength(orderIds.length);
  expect(rows.every((row) => row.n === 1)).toBe(true);
  expect(await ledgerViolations(pool, partner.id)).toEqual([]);

  // Each order's payment.paid, then its provision.provisioned, at least once each (receivers dedupe by id).
  await until(
    async () => (orderIds.every((id) => received.some((event) => event.orderId === id && event.type === 'provision.provisioned')) ? true : undefined),
    'every order’s provision.provisioned webhook',
    120_000,
    500,
  );
  for (const id of orderIds) {
    const types = received.filter((event) => event.orderId === id).map((event) => event.type);
    expect(types.indexOf('payment.paid'), id).toBeGreaterThanOrEqual(0);
    expect(types.indexOf('payment.paid'), id).toBeLessThan(types.indexOf('provision.provisioned'));
  }

  const run = await admin('/reconciliation/run', { method: 'POST' });
  expect(run.status, run.text).toBe(200);
  expect(run.body.findings).toEqual([]);
}

describe.skipIf('missing' in binaries)('faults: the infrastructure under load', () => {
  beforeAll(async () => {
    partner = await onboard();
  }, 120_000);

  it('when Postgres stops for 3 s while orders stream in, then every order is final, debited once, its webhooks arrive in order, and no answer was a 500', async () => {
    const { orderIds, seen, duringFault } = await burstThrough(async () => {
      database.stop();
      await sleep(3_000);
      database.start();
    });
    // The outage was felt: requests made while Postgres was down were refused as retryable.
    expect(duringFault.get(503) ?? 0).toBeGreaterThan(0);
    process.stderr.write(`faults-infrastructure: answers seen while Postgres was down: ${JSON.stringify(Object.fromEntries(seen))}\n`);
    await expectWhole(orderIds, seen);
  }, 600_000);

  it('when every byte to and from NATS is held for 8 s while orders stream in, then every order is final, debited once, its webhooks arrive in order, and no answer was a 500', async () => {
    const { orderIds, seen, duringFault } = await burstThrough(() => natsLink.stall(8_000));
    // Orders kept being accepted while the link was held: the gateway answers from Postgres, the saga waits.
    expect(duringFault.get(201) ?? 0).toBeGreaterThan(0);
    process.stderr.write(`faults-infrastructure: answers seen while NATS stalled: ${JSON.stringify(Object.fromEntries(seen))}\n`);
    await expectWhole(orderIds, seen);
  }, 600_000);
});
