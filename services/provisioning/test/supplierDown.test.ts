// Protects the end of the retry window (§8): when the supplier cannot be reached or never answers, the order is retried until the window measured from payment has passed, then fails once with a partner-readable reason.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { failureReasons } from '../src/domain/supplierCall.js';
import { createTestEnv, until, type TestEnv } from './support/testEnv.js';

const windowMs = 2_000;
let refused: TestEnv;
let silent: TestEnv;
let hangingSupplier: Server;

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  // Accepts every request and never answers, as an overloaded upstream does.
  hangingSupplier = createServer(() => {});
  await new Promise<void>((resolve) => hangingSupplier.listen(0, '127.0.0.1', resolve));
  [refused, silent] = await Promise.all([createTestEnv(), createTestEnv()]);
  await Promise.all([
    refused.start({ SUPPLIER_URL: `http://127.0.0.1:${await closedPort()}`, PROVISIONING_RETRY_WINDOW_MS: String(windowMs) }),
    silent.start({
      SUPPLIER_URL: `http://127.0.0.1:${(hangingSupplier.address() as AddressInfo).port}`,
      SUPPLIER_TIMEOUT_MS: '200',
      PROVISIONING_RETRY_WINDOW_MS: String(windowMs),
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([refused?.cleanup(), silent?.cleanup()]);
  hangingSupplier?.closeAllConnections();
  await new Promise((resolve) => hangingSupplier?.close(resolve));
});

describe('a supplier that cannot be reached', () => {
  it('when every call is refused, then the order fails once after the retry window, having been retried meanwhile', async () => {
    const orderId = newId('ord');
    const paid = await refused.publishPaid({ orderId, supplierSku: 'ESIM-FR-5GB-30D' });
    await until(async () => (await refused.results(orderId)).length > 0, 'the failure event', 15_000);
    await until(() => refused.settled(), 'the consumer to acknowledge the event');

    const results = await refused.results(orderId);
    expect(results.map((r) => ({ type: r.type, data: r.data }))).toEqual([{ type: 'provisioning.failed', data: { orderId, partnerId: paid.data.partnerId, reason: failureReasons.retryWindowOver } }]);
    // Not before the window: the failure is decided on a delivery at least windowMs after payment.
    expect(Date.parse(results[0]!.occurredAt) - Date.parse(paid.occurredAt)).toBeGreaterThanOrEqual(windowMs);
    const call = await refused.supplierCall(orderId);
    expect(call).toMatchObject({ state: 'failed', lastStatusCode: null });
    expect(call?.attempts).toBeGreaterThan(1);
    expect(call?.lastError).toMatch(/ECONNREFUSED/);
  });

  it('when the order was paid longer ago than the window, then the first failed call fails it without retrying', async () => {
    const orderId = newId('ord');
    await refused.publishPaid({ orderId, supplierSku: 'ESIM-FR-5GB-30D' }, { occurredAt: new Date(Date.now() - 60 * 60_000).toISOString() });
    await until(async () => (await refused.results(orderId)).length > 0, 'the failure event');
    await until(() => refused.settled(), 'the consumer to acknowledge the event');
    expect((await refused.results(orderId)).map((r) => r.type)).toEqual(['provisioning.failed']);
    expect(await refused.supplierCall(orderId)).toMatchObject({ state: 'failed', attempts: 1 });
  });
});

describe('a supplier that never answers', () => {
  it('when every call times out, then the calls are abandoned at the timeout and the order fails after the window', async () => {
    const orderId = newId('ord');
    const paid = await silent.publishPaid({ orderId, supplierSku: 'ESIM-FR-5GB-30D' });
    await until(async () => (await silent.results(orderId)).length > 0, 'the failure event', 15_000);
    await until(() => silent.settled(), 'the consumer to acknowledge the event');
    // The account travels on, so the event takes its order's lane (@esim/events lanes.ts).
    expect((await silent.results(orderId)).map((r) => r.data)).toEqual([{ orderId, partnerId: paid.data.partnerId, reason: failureReasons.retryWindowOver }]);
    const call = await silent.supplierCall(orderId);
    expect(call).toMatchObject({ state: 'failed', lastStatusCode: null, lastError: 'SM-DP+ DownloadOrder: no answer within 200 ms' });
    expect(call?.attempts).toBeGreaterThan(1);
  });
});
