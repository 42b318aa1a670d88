// Protects the supplier simulator's HTTP contract (§8) as the provisioning worker relies on it: one eSIM per reference, FAIL- and FLAKY- SKUs, transient 503s, bounded and validated requests, and the configured delay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasValidLuhn } from '../src/domain/esimIdentity.js';
import { cleanUp, startSim, uniqueReference, type Sim } from './support/sim.js';

let sim: Sim;
let baseUrl: string;

function order(body: unknown, url = baseUrl): Promise<Response> {
  return fetch(`${url}/v1/esims`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** Every answer of this API is a flat JSON object of strings. */
const body = async (response: Response) => (await response.json()) as Record<string, string>;

beforeAll(async () => {
  sim = await startSim();
  baseUrl = sim.url;
});
afterAll(cleanUp);

describe('POST /v1/esims', () => {
  it('when a normal SKU is ordered, then 201 carries a Luhn-valid ICCID and the SGP.22 activation code', async () => {
    const reference = uniqueReference();
    const response = await order({ sku: 'ESIM-FR-5GB-30D', reference });
    expect(response.status).toBe(201);
    const esim = await body(response);
    expect(Object.keys(esim).sort()).toEqual(['activationCode', 'iccid', 'matchingId', 'reference', 'smdpAddress']);
    expect(esim.reference).toBe(reference);
    expect(esim.iccid).toMatch(/^89\d{18}$/);
    expect(hasValidLuhn(esim.iccid!)).toBe(true);
    expect(esim.smdpAddress).toBe('smdp.test.example');
    expect(esim.matchingId).toMatch(/^[0-9A-Z]+(-[0-9A-Z]+)+$/);
    expect(esim.activationCode).toBe(`LPA:1$smdp.test.example$${esim.matchingId}`);
  });

  it('when the same reference is ordered again, then 200 returns the same eSIM', async () => {
    const reference = uniqueReference();
    const first = await body(await order({ sku: 'ESIM-FR-5GB-30D', reference }));
    const again = await order({ sku: 'ESIM-FR-5GB-30D', reference });
    expect(again.status).toBe(200);
    expect(await body(again)).toEqual(first);
    const other = await body(await order({ sku: 'ESIM-FR-5GB-30D', reference: uniqueReference() }));
    expect(other.iccid).not.toBe(first.iccid);
  });

  it('when the SKU starts with FAIL-, then every call answers 422 sku_rejected and nothing is issued', async () => {
    const reference = uniqueReference();
    for (let i = 0; i < 3; i++) {
      const response = await order({ sku: 'FAIL-ES-1GB', reference });
      expect(response.status).toBe(422);
      expect(await body(response)).toMatchObject({ error: 'sku_rejected', message: expect.any(String) });
    }
    expect((await fetch(`${baseUrl}/v1/esims/${reference}`)).status).toBe(404);
  });

  it('when the SKU starts with FLAKY-, then the first two calls for a reference answer 503 and the third issues the eSIM', async () => {
    const reference = uniqueReference();
    for (let i = 0; i < 2; i++) {
      const response = await order({ sku: 'FLAKY-IT-3GB', reference });
      expect(response.status).toBe(503);
      expect(await body(response)).toMatchObject({ error: 'temporarily_unavailable' });
    }
    const third = await order({ sku: 'FLAKY-IT-3GB', reference });
    expect(third.status).toBe(201);
    const esim = await body(third);
    const fourth = await order({ sku: 'FLAKY-IT-3GB', reference });
    expect(fourth.status).toBe(200);
    expect(await body(fourth)).toEqual(esim);
    // Each reference has its own two failures.
    expect((await order({ sku: 'FLAKY-IT-3GB', reference: uniqueReference() })).status).toBe(503);
  });

  it.each([
    ['not JSON', '{"sku": '],
    ['a JSON array', '[]'],
    ['no sku', JSON.stringify({ reference: 'ord_1' })],
    ['no reference', JSON.stringify({ sku: 'ESIM-FR-5GB-30D' })],
    ['an empty sku', JSON.stringify({ sku: '', reference: 'ord_1' })],
    ['a numeric reference', JSON.stringify({ sku: 'ESIM-FR-5GB-30D', reference: 42 })],
    ['a zero dataMb', JSON.stringify({ sku: 'ESIM-FR-5GB-30D', reference: 'ord_1', dataMb: 0 })],
    ['a fractional dataMb', JSON.stringify({ sku: 'ESIM-FR-5GB-30D', reference: 'ord_1', dataMb: 1.5 })],
    ['a string validityDays', JSON.stringify({ sku: 'ESIM-FR-5GB-30D', reference: 'ord_1', validityDays: '30' })],
    ['a negative validityDays', JSON.stringify({ sku: 'ESIM-FR-5GB-30D', reference: 'ord_1', validityDays: -1 })],
  ])('when the body is %s, then 400 bad_request', async (_, requestBody) => {
    const response = await order(requestBody);
    expect(response.status).toBe(400);
    expect(await body(response)).toMatchObject({ error: 'bad_request', message: expect.any(String) });
  });

  it('when the body is over 16 KiB, then 413 and nothing is issued', async () => {
    const reference = uniqueReference();
    const response = await order({ sku: 'ESIM-FR-5GB-30D', reference, padding: 'x'.repeat(17 * 1024) });
    expect(response.status).toBe(413);
    expect(await body(response)).toMatchObject({ error: 'payload_too_large' });
    expect((await fetch(`${baseUrl}/v1/esims/${reference}`)).status).toBe(404);
  });
});

describe('GET /v1/esims/{reference}', () => {
  it('when the reference was issued, then 200 returns its eSIM; otherwise 404', async () => {
    const reference = uniqueReference();
    const issued = await body(await order({ sku: 'ESIM-FR-5GB-30D', reference }));
    const found = await fetch(`${baseUrl}/v1/esims/${encodeURIComponent(reference)}`);
    expect(found.status).toBe(200);
    expect(await body(found)).toEqual(issued);
    const missing = await fetch(`${baseUrl}/v1/esims/${uniqueReference()}`);
    expect(missing.status).toBe(404);
    expect(await body(missing)).toEqual({ error: 'not_found' });
  });

  it('when any other route or method is asked for, then 404', async () => {
    for (const [method, path] of [['GET', '/'], ['GET', '/v1/esims'], ['DELETE', '/v1/esims/x'], ['POST', '/v1/esims/x'], ['GET', '/v2/esims/x']] as const) {
      expect((await fetch(`${baseUrl}${path}`, { method })).status).toBe(404);
    }
  });
});

describe('configured behaviour', () => {
  it('when the failure rate is 1, then every order answers 503 temporarily_unavailable', async () => {
    const { url } = await startSim({ SUPPLIER_FAILURE_RATE: '1' });
    for (let i = 0; i < 3; i++) {
      const response = await order({ sku: 'ESIM-FR-5GB-30D', reference: uniqueReference() }, url);
      expect(response.status).toBe(503);
      expect(await body(response)).toMatchObject({ error: 'temporarily_unavailable' });
    }
  });

  it('when a latency is configured, then no answer comes before it has passed', async () => {
    const latencyMs = 250;
    const { url } = await startSim({ SUPPLIER_LATENCY_MS: String(latencyMs) });
    for (const request of [() => order({ sku: 'ESIM-FR-5GB-30D', reference: uniqueReference() }, url), () => fetch(`${url}/v1/esims/unknown`)]) {
      const started = performance.now();
      await (await request()).arrayBuffer();
      expect(performance.now() - started).toBeGreaterThanOrEqual(latencyMs - 5);
    }
  });

  it('when started, then its health server answers /healthz apart from the API port', async () => {
    const { app } = sim;
    expect(app.ports.health).not.toBe(app.ports.http.api);
    expect((await fetch(`http://127.0.0.1:${app.ports.health}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${app.ports.health}/readyz`)).status).toBe(200);
  });
});
