// Protects how the connectivity provider's answers are sorted, which decides whether an order gets its bundle, fails for good or is retried: only a well-formed answer for our reference and ICCID counts as added, and only a definite 4xx counts as a rejection.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectivityClient, type ConnectivityPort } from '../src/connectivity/connectivityClient.js';

/** What the fake upstream answers next: status and raw body. */
let next: { status: number; body: string } = { status: 200, body: '{}' };
let lastRequest: { method?: string; url?: string; body: string } | undefined;
let server: Server;
let client: ConnectivityPort;

const esim = (reference: string) => ({
  reference,
  iccid: '89000000000000000009',
  smdpAddress: 'smdp.example.com',
  matchingId: 'K2-3F9A1-7QX2P',
  activationCode: 'LPA:1$smdp.example.com$K2-3F9A1-7QX2P',
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      lastRequest = { method: req.method, url: req.url, body: Buffer.concat(chunks).toString('utf8') };
      res.writeHead(next.status, { 'content-type': 'application/json' }).end(next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A base URL with a path and no trailing slash still reaches {base}/v1/esims.
  client = createConnectivityClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/upstream`, timeoutMs: 2_000 });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('connectivity client', () => {
  it('when the provider answers 201 for our reference and ICCID, then the bundle is added and the request carried iccid, sku and reference', async () => {
    next = { status: 201, body: JSON.stringify(esim('ord_1')) };
    const { reference, iccid, ...profile } = esim('ord_1');
    expect(await client.addFirstBundle({ iccid, sku: 'ESIM-FR', reference: 'ord_1' })).toEqual({ kind: 'added', statusCode: 201, bundle: { reference, iccid, profile } });
    expect(lastRequest).toEqual({ method: 'POST', url: '/upstream/v1/esims', body: JSON.stringify({ iccid, sku: 'ESIM-FR', reference: 'ord_1' }) });
  });

  it('when the provider answers without a profile, then the bundle is added with none', async () => {
    next = { status: 201, body: JSON.stringify({ reference: 'ord_1', iccid: esim('ord_1').iccid }) };
    expect(await client.addFirstBundle({ iccid: esim('ord_1').iccid, sku: 'ESIM-FR', reference: 'ord_1' })).toMatchObject({ kind: 'added', bundle: { profile: null } });
  });

  it.each([
    ['another reference', JSON.stringify(esim('ord_other'))],
    ['another ICCID', JSON.stringify({ ...esim('ord_1'), iccid: '89000000000000000017' })],
    ['a non-LPA activation code', JSON.stringify({ ...esim('ord_1'), activationCode: 'https://example.com' })],
    ['no JSON at all', '<html>ok</html>'],
  ])('when a 2xx carries %s, then it is a transient bad_response, never an eSIM', async (_, body) => {
    next = { status: 200, body };
    expect(await client.addFirstBundle({ iccid: esim('ord_1').iccid, sku: 'ESIM-FR', reference: 'ord_1' })).toMatchObject({ kind: 'transient', cause: 'bad_response', statusCode: 200 });
  });

  it('when the provider answers 422, then it is a rejection whose detail keeps the provider error for operators', async () => {
    next = { status: 422, body: JSON.stringify({ error: 'sku_rejected', message: 'SKU FAIL-1 cannot be provisioned.' }) };
    expect(await client.addFirstBundle({ iccid: esim('ord_1').iccid, sku: 'FAIL-1', reference: 'ord_1' })).toEqual({
      kind: 'rejected',
      statusCode: 422,
      detail: 'HTTP 422 sku_rejected: SKU FAIL-1 cannot be provisioned.',
    });
  });

  it.each([
    [503, 'unavailable'],
    [500, 'unavailable'],
    [429, 'throttled'],
    [408, 'unavailable'],
  ])('when the provider answers %i, then it is transient (%s)', async (status, cause) => {
    next = { status, body: '{"error":"temporarily_unavailable"}' };
    expect(await client.addFirstBundle({ iccid: esim('ord_1').iccid, sku: 'ESIM-FR', reference: 'ord_1' })).toMatchObject({ kind: 'transient', cause, statusCode: status });
  });

  it('when the answer is over 64 KiB, then it is not read to the end and counts as a transient bad_response', async () => {
    next = { status: 201, body: JSON.stringify({ ...esim('ord_1'), padding: 'x'.repeat(70 * 1024) }) };
    expect(await client.addFirstBundle({ iccid: esim('ord_1').iccid, sku: 'ESIM-FR', reference: 'ord_1' })).toMatchObject({ kind: 'transient', cause: 'bad_response' });
  });
});
