// Protects the supplier API that top-ups and cancellations rely on (§13): bundle sizes, add-bundle idempotent by reference, revoke rules (first bundle = whole eSIM, never a used bundle or an installed eSIM), and their 404/409/503 answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, newEsim, newTopUp, post, startReceiver, startSim, uniqueReference, call, type Sim } from './support/sim.js';

let sim: Sim;

beforeAll(async () => {
  const receiver = await startReceiver();
  sim = await startSim({ SUPPLIER_NOTIFICATION_URL: receiver.url });
});
afterAll(cleanUp);

const view = async (iccid: string) => (await call(`${sim.url}/simulator/esims/${iccid}`, 'GET')).body;
const addBundle = (iccid: string, body: unknown) => post(`${sim.url}/v1/esims/${iccid}/bundles`, body);
const revoke = (reference: string) => post(`${sim.url}/v1/bundles/${encodeURIComponent(reference)}/revoke`);

describe('bundle sizes', () => {
  it('when dataMb and validityDays are sent, then the first bundle has that size; without them 1024 MB for 30 days', async () => {
    const sized = await newEsim(sim, { dataMb: 5120, validityDays: 7 });
    expect(await view(sized.iccid)).toEqual({
      iccid: sized.iccid,
      status: 'released',
      eid: null,
      suspended: false,
      bundles: [{ reference: sized.reference, sku: 'ESIM-FR-5GB-30D', dataMb: 5120, dataUsedMb: 0, validityDays: 7, status: 'queued', activatedAt: null, expiresAt: null }],
    });
    const plain = await newEsim(sim);
    expect((await view(plain.iccid)).bundles[0]).toMatchObject({ dataMb: 1024, validityDays: 30 });
  });
});

describe('POST /v1/esims/{iccid}/bundles', () => {
  it('when a bundle is added, then 201 answers the same eSIM profile under the new reference, queued behind the first', async () => {
    const esim = await newEsim(sim);
    const reference = uniqueReference();
    const added = await addBundle(esim.iccid, { sku: 'ESIM-FR-1GB-7D', reference, dataMb: 1024, validityDays: 7 });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ ...esim, reference });
    const bundles = (await view(esim.iccid)).bundles;
    expect(bundles.map((b: { reference: string; status: string }) => [b.reference, b.status])).toEqual([
      [esim.reference, 'queued'],
      [reference, 'queued'],
    ]);
    expect(bundles[1]).toMatchObject({ sku: 'ESIM-FR-1GB-7D', dataMb: 1024, validityDays: 7, dataUsedMb: 0 });
    // The supplier's GET finds the top-up's reference too.
    expect(await call(`${sim.url}/v1/esims/${reference}`, 'GET')).toEqual({ status: 200, body: { ...esim, reference } });
  });

  it('when the same reference is added again, then 200 answers the same and no second bundle is added', async () => {
    const esim = await newEsim(sim);
    const reference = uniqueReference();
    const first = await addBundle(esim.iccid, { sku: 'ESIM-FR-1GB-7D', reference });
    const again = await addBundle(esim.iccid, { sku: 'ESIM-FR-1GB-7D', reference });
    expect(again).toEqual({ status: 200, body: first.body });
    expect((await view(esim.iccid)).bundles).toHaveLength(2);
  });

  it('when the ICCID was never issued, then 404 not_found', async () => {
    expect(await addBundle('8900000000000000000', { sku: 'ESIM-FR-1GB-7D', reference: uniqueReference() })).toEqual({ status: 404, body: { error: 'not_found' } });
  });

  it('when the reference already names another eSIM or a first bundle, then 409 reference_conflict and nothing is added', async () => {
    const esim = await newEsim(sim);
    const other = await newEsim(sim);
    const conflict = await addBundle(esim.iccid, { sku: 'ESIM-FR-1GB-7D', reference: other.reference });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ error: 'reference_conflict' });
    expect((await addBundle(esim.iccid, { sku: 'ESIM-FR-1GB-7D', reference: esim.reference })).status).toBe(409);
    expect((await view(esim.iccid)).bundles).toHaveLength(1);
  });

  it('when the SKU starts with FAIL-, then 422; with FLAKY-, two 503s then 201', async () => {
    const esim = await newEsim(sim);
    const rejected = await addBundle(esim.iccid, { sku: 'FAIL-FR-1GB', reference: uniqueReference() });
    expect(rejected.status).toBe(422);
    expect(rejected.body).toMatchObject({ error: 'sku_rejected' });
    const reference = uniqueReference();
    expect((await addBundle(esim.iccid, { sku: 'FLAKY-FR-1GB', reference })).status).toBe(503);
    expect((await addBundle(esim.iccid, { sku: 'FLAKY-FR-1GB', reference })).status).toBe(503);
    expect((await addBundle(esim.iccid, { sku: 'FLAKY-FR-1GB', reference })).status).toBe(201);
    expect((await view(esim.iccid)).bundles).toHaveLength(2);
  });

  it.each([
    ['no reference', { sku: 'ESIM-FR-1GB-7D' }],
    ['a zero dataMb', { sku: 'ESIM-FR-1GB-7D', reference: 'ord_x', dataMb: 0 }],
    ['a fractional validityDays', { sku: 'ESIM-FR-1GB-7D', reference: 'ord_x', validityDays: 2.5 }],
    ['not JSON', '{"sku"'],
  ])('when the body has %s, then 400 bad_request', async (_, body) => {
    const esim = await newEsim(sim);
    const answer = await addBundle(esim.iccid, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'bad_request' });
  });
});

describe('POST /v1/bundles/{reference}/revoke', () => {
  it("when a top-up's reference is revoked, then 200 and only that bundle is cancelled; again, 200 again", async () => {
    const esim = await newEsim(sim);
    const topUp = await newTopUp(sim, esim.iccid);
    const expected = { status: 200, body: { reference: topUp, iccid: esim.iccid, status: 'revoked' } };
    expect(await revoke(topUp)).toEqual(expected);
    expect(await revoke(topUp)).toEqual(expected);
    const after = await view(esim.iccid);
    expect(after.status).toBe('released');
    expect(after.bundles.map((b: { status: string }) => b.status)).toEqual(['queued', 'cancelled']);
  });

  it("when a first bundle's reference is revoked, then the whole eSIM is revoked, every bundle cancelled, and it takes no more bundles", async () => {
    const esim = await newEsim(sim);
    await newTopUp(sim, esim.iccid);
    const expected = { status: 200, body: { reference: esim.reference, iccid: esim.iccid, status: 'revoked' } };
    expect(await revoke(esim.reference)).toEqual(expected);
    expect(await revoke(esim.reference)).toEqual(expected);
    const after = await view(esim.iccid);
    expect(after.status).toBe('revoked');
    expect(after.bundles.map((b: { status: string }) => b.status)).toEqual(['cancelled', 'cancelled']);
    const refused = await addBundle(esim.iccid, { sku: 'ESIM-FR-1GB-7D', reference: uniqueReference() });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'esim_revoked' });
  });

  it('when the reference is unknown, then 404 not_found', async () => {
    expect(await revoke(uniqueReference())).toEqual({ status: 404, body: { error: 'not_found' } });
  });

  it('when the bundle has any use, then 409 bundle_used and nothing changes', async () => {
    const esim = await newEsim(sim, { dataMb: 100 });
    expect((await post(`${sim.url}/simulator/esims/${esim.iccid}/usage`, { addMb: 1 })).status).toBe(200);
    const before = await view(esim.iccid);
    const refused = await revoke(esim.reference);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'bundle_used' });
    expect(await view(esim.iccid)).toEqual(before);
  });

  it("when a first bundle's eSIM is installed, then 409 esim_installed; its unused top-up can still be revoked", async () => {
    const esim = await newEsim(sim);
    const topUp = await newTopUp(sim, esim.iccid);
    expect((await post(`${sim.url}/simulator/esims/${esim.iccid}/install`)).status).toBe(200);
    const refused = await revoke(esim.reference);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'esim_installed' });
    expect((await revoke(topUp)).status).toBe(200);
    expect((await view(esim.iccid)).bundles.map((b: { status: string }) => b.status)).toEqual(['queued', 'cancelled']);
  });
});

describe('random failures', () => {
  it('when the failure rate is 1, then adding a bundle and revoking answer 503 temporarily_unavailable', async () => {
    const failing = await startSim({ SUPPLIER_FAILURE_RATE: '1' });
    const added = await post(`${failing.url}/v1/esims/8900000000000000000/bundles`, { sku: 'ESIM-FR-1GB-7D', reference: uniqueReference() });
    expect(added.status).toBe(503);
    expect(added.body).toMatchObject({ error: 'temporarily_unavailable' });
    const revoked = await post(`${failing.url}/v1/bundles/${uniqueReference()}/revoke`);
    expect(revoked.status).toBe(503);
    expect(revoked.body).toMatchObject({ error: 'temporarily_unavailable' });
  });
});
