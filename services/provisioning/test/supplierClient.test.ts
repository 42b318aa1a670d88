// Protects how supplier answers are sorted, which decides whether an order gets its eSIM, fails for good or is retried: only a well-formed eSIM for our reference counts as issued, and only a definite 4xx counts as a rejection.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupplierClient, type SupplierClient } from '../src/supplier/supplierClient.js';

/** What the fake upstream answers next: status and raw body. */
let next: { status: number; body: string } = { status: 200, body: '{}' };
let lastRequest: { method?: string; url?: string; body: string } | undefined;
let server: Server;
let client: SupplierClient;

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
  client = createSupplierClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/upstream`, timeoutMs: 2_000 });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('supplier client', () => {
  it('when the supplier answers 201 with an eSIM for our reference, then it is issued and the request carried sku and reference', async () => {
    next = { status: 201, body: JSON.stringify(esim('ord_1')) };
    expect(await client.requestEsim({ sku: 'ESIM-FR', reference: 'ord_1' })).toEqual({ kind: 'issued', statusCode: 201, esim: esim('ord_1') });
    expect(lastRequest).toEqual({ method: 'POST', url: '/upstream/v1/esims', body: JSON.stringify({ sku: 'ESIM-FR', reference: 'ord_1' }) });
  });

  it.each([
    ['another reference', JSON.stringify(esim('ord_other'))],
    ['no activation code', JSON.stringify({ ...esim('ord_1'), activationCode: undefined })],
    ['a non-LPA activation code', JSON.stringify({ ...esim('ord_1'), activationCode: 'https://example.com' })],
    ['no JSON at all', '<html>ok</html>'],
  ])('when a 2xx carries %s, then it is a transient bad_response, never an eSIM', async (_, body) => {
    next = { status: 200, body };
    expect(await client.requestEsim({ sku: 'ESIM-FR', reference: 'ord_1' })).toMatchObject({ kind: 'transient', cause: 'bad_response', statusCode: 200 });
  });

  it('when the supplier answers 422, then it is a rejection whose detail keeps the supplier error for operators', async () => {
    next = { status: 422, body: JSON.stringify({ error: 'sku_rejected', message: 'SKU FAIL-1 cannot be provisioned.' }) };
    expect(await client.requestEsim({ sku: 'FAIL-1', reference: 'ord_1' })).toEqual({
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
  ])('when the supplier answers %i, then it is transient (%s)', async (status, cause) => {
    next = { status, body: '{"error":"temporarily_unavailable"}' };
    expect(await client.requestEsim({ sku: 'ESIM-FR', reference: 'ord_1' })).toMatchObject({ kind: 'transient', cause, statusCode: status });
  });

  it('when the answer is over 64 KiB, then it is not read to the end and counts as a transient bad_response', async () => {
    next = { status: 201, body: JSON.stringify({ ...esim('ord_1'), padding: 'x'.repeat(70 * 1024) }) };
    expect(await client.requestEsim({ sku: 'ESIM-FR', reference: 'ord_1' })).toMatchObject({ kind: 'transient', cause: 'bad_response' });
  });
});
