// Protects the simulator's SM-DP+ side (SGP.22 ES2+): answers in the JSON binding's shape with X-Admin-Protocol, a repeated functionCallIdentifier answered as the first time, refusals with SGP.22 status codes, FAIL-/FLAKY- profile types, and a profile the connectivity side then carries bundles on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, startSim, type Sim } from './support/sim.js';

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim.app.close();
  await cleanUp();
});

let n = 0;
const header = (callId = `fci-${Date.now()}-${++n}`) => ({ functionRequesterIdentifier: 'esim-platform', functionCallIdentifier: callId });
async function es2(fn: string, body: unknown) {
  const response = await fetch(`${sim.url}/gsma/rsp2/es2plus/${fn}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-protocol': 'gsma/rsp/v2.5.0' },
    body: JSON.stringify(body),
  });
  return { status: response.status, protocol: response.headers.get('x-admin-protocol'), body: (await response.json()) as any };
}

describe('the simulated SM-DP+', () => {
  it('when a profile is ordered and confirmed with releaseFlag, then it is released with a matching id, and a repeated call id answers the same', async () => {
    const downloadHeader = header();
    const download = await es2('downloadOrder', { header: downloadHeader, profileType: 'esim-data' });
    expect(download).toMatchObject({ status: 200, protocol: 'gsma/rsp/v2.5.0', body: { header: { functionExecutionStatus: { status: 'Executed-Success' } } } });
    const { iccid } = download.body;
    expect(iccid).toMatch(/^\d{20}$/);
    expect((await es2('downloadOrder', { header: downloadHeader, profileType: 'esim-data' })).body.iccid).toBe(iccid);

    const confirmHeader = header();
    const confirm = await es2('confirmOrder', { header: confirmHeader, iccid, releaseFlag: true });
    expect(confirm.body).toMatchObject({ header: { functionExecutionStatus: { status: 'Executed-Success' } }, smdpAddress: 'smdp.test.example' });
    expect((await es2('confirmOrder', { header: confirmHeader, iccid, releaseFlag: true })).body.matchingId).toBe(confirm.body.matchingId);
    expect((await es2('confirmOrder', { header: header(), iccid, releaseFlag: true })).body.header.functionExecutionStatus).toMatchObject({
      status: 'Failed',
      statusCodeData: { subjectCode: '8.2.1', reasonCode: '3.3' },
    });

    const bundle = await fetch(`${sim.url}/v1/esims`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ iccid, sku: 'ESIM-FR', reference: `ord_es2_${n}` }) });
    expect(bundle.status).toBe(201);
    expect(await bundle.json()).toMatchObject({ iccid, matchingId: confirm.body.matchingId, activationCode: `LPA:1$smdp.test.example$${confirm.body.matchingId}` });
    expect((await es2('cancelOrder', { header: header(), iccid, finalProfileStatusIndicator: 'Unavailable' })).body.header.functionExecutionStatus.status).toBe('Executed-Success');
  });

  it.each([
    ['no header', { profileType: 'esim-data' }, '2.2'],
    ['a header without its call id', { header: { functionRequesterIdentifier: 'x' }, profileType: 'esim-data' }, '2.2'],
    ['a FAIL- profile type', { header: header(), profileType: 'FAIL-x' }, '3.9'],
  ])('when DownloadOrder has %s, then Failed with reason %s', async (_, body, reasonCode) => {
    const answer = await es2('downloadOrder', body);
    expect(answer.status).toBe(200);
    expect(answer.body.header.functionExecutionStatus).toMatchObject({ status: 'Failed', statusCodeData: { reasonCode } });
  });

  it('when a FLAKY- profile type is ordered, then 3.7 twice under the same call id, then a profile', async () => {
    const same = header();
    const reasons = [];
    for (let i = 0; i < 3; i++) reasons.push((await es2('downloadOrder', { header: same, profileType: 'FLAKY-x' })).body.header.functionExecutionStatus.statusCodeData?.reasonCode ?? 'ok');
    expect(reasons).toEqual(['3.7', '3.7', 'ok']);
  });

  it('when ConfirmOrder names an unknown ICCID, then Failed 8.2.1 / 3.9', async () => {
    expect((await es2('confirmOrder', { header: header(), iccid: '89000000000000000000', releaseFlag: true })).body.header.functionExecutionStatus.statusCodeData).toMatchObject({
      subjectCode: '8.2.1',
      reasonCode: '3.9',
    });
  });
});
