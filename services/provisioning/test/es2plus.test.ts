// Protects provisioning's ES2+ interoperability (contract §8) over mutual TLS with certificates the test issues: the wire form of every call it makes to an SM-DP+ (the simulator, behind a recorder that can also answer on its behalf), functionCallIdentifier reuse on a retry of the same call, an SM-DP+ that dies between DownloadOrder and ConfirmOrder, the sorting of refusals and garbage into permanent and transient, TLS refusals, and the HandleDownloadProgressInfo listener's 204 / duplicate / refusal answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequest, Agent, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { startService, type RunningService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { supplierSimService } from '../../supplier-sim/src/app.js';
import type { Config as SimConfig } from '../../supplier-sim/src/config.js';
import { failureReasons } from '../src/domain/supplierCall.js';
import { issueTestPki, type TestPki } from './support/pki.js';
import { createTestEnv, until, type TestEnv } from './support/testEnv.js';

interface Recorded {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  clientAuthorized: boolean;
}

/** What the recorder does with the next call of a function instead of forwarding it. */
type Fault = { kind: 'forward_then_drop' } | { kind: 'drop' } | { kind: 'answer'; status: number; body: string };

const requesterId = 'esim-platform-test';
let pki: TestPki;
let env: TestEnv;
let sim: RunningService<SimConfig>;
let simDir: string;
let recorder: Server;
let notifyPort: number;
let provisioning: RunningService<any>;
const recorded: Recorded[] = [];
const faults = new Map<string, Fault[]>();

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

const fault = (fn: string, ...list: Fault[]) => faults.set(fn, [...(faults.get(fn) ?? []), ...list]);
const callsOf = (fn: string, from: number) => recorded.slice(from).filter((call) => call.path === `/gsma/rsp2/es2plus/${fn}`);
const es2Answer = (status: string, extra: Record<string, unknown> = {}, statusCodeData?: Record<string, string>) =>
  JSON.stringify({ header: { functionExecutionStatus: { status, ...(statusCodeData ? { statusCodeData } : {}) } }, ...extra });

beforeAll(async () => {
  pki = issueTestPki();
  env = await createTestEnv();
  notifyPort = await freePort();
  simDir = mkdtempSync(join(tmpdir(), 'supplier-sim-es2-'));
  sim = await startService(supplierSimService, {
    logger: createLogger('supplier-sim', 'silent'),
    env: {
      NODE_ENV: 'test',
      PORT: '0',
      HEALTH_PORT: '0',
      HOST: '127.0.0.1',
      SUPPLIER_LATENCY_MS: '0',
      SUPPLIER_SIM_DATA_DIR: simDir,
      SUPPLIER_CALLBACK_SECRET: 'test-supplier-callback-secret',
      // The connectivity side's notifications go nowhere that matters here; the SM-DP+'s go to provisioning over mutual TLS.
      SUPPLIER_NOTIFICATION_URL: 'http://127.0.0.1:9/unused',
      SMDP_NOTIFY_URL: `https://127.0.0.1:${notifyPort}/gsma/rsp2/es2plus/handleDownloadProgressInfo`,
      SUPPLIER_SIM_TLS_CERT: pki.smdp.certFile,
      SUPPLIER_SIM_TLS_KEY: pki.smdp.keyFile,
      SUPPLIER_SIM_TLS_CA: pki.caFile,
      SUPPLIER_SIM_TLS_PORT: '0',
    },
  });
  const simTlsPort = sim.ports.http['es2-tls']!;
  // The recorder plays the SM-DP+'s front door: mutual TLS (provisioning's certificate must chain to the CA), then the simulator.
  const upstream = new Agent({ cert: pki.operator.cert, key: pki.operator.key, ca: pki.ca });
  recorder = createHttpsServer({ cert: pki.smdp.cert, key: pki.smdp.key, ca: pki.ca, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = req.url ?? '';
      recorded.push({ path, headers: req.headers, body: JSON.parse(raw.toString('utf8')), clientAuthorized: (req.socket as TLSSocket).authorized });
      const fn = path.split('/').pop() ?? '';
      const next = faults.get(fn)?.shift();
      if (next?.kind === 'drop') return req.socket.destroy();
      if (next?.kind === 'answer') return res.writeHead(next.status, { 'content-type': 'application/json', 'x-admin-protocol': 'gsma/rsp/v2.5.0' }).end(next.body);
      const forwarded = httpsRequest(
        { host: '127.0.0.1', port: simTlsPort, path, method: 'POST', agent: upstream, headers: { 'content-type': 'application/json', 'x-admin-protocol': String(req.headers['x-admin-protocol']) } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (part: Buffer) => parts.push(part));
          answer.on('end', () => {
            // The SM-DP+ did the work; its answer never reaches provisioning.
            if (next?.kind === 'forward_then_drop') return req.socket.destroy();
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(parts));
          });
        },
      );
      forwarded.on('error', () => req.socket.destroy());
      forwarded.end(raw);
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  provisioning = await env.start({
    SMDP_ES2_URL: `https://127.0.0.1:${(recorder.address() as AddressInfo).port}`,
    CONNECTIVITY_URL: `http://127.0.0.1:${sim.ports.http.api}`,
    SMDP_REQUESTER_ID: requesterId,
    SMDP_CLIENT_CERT: pki.operator.certFile,
    SMDP_CLIENT_KEY: pki.operator.keyFile,
    SMDP_CA: pki.caFile,
    ES2_NOTIFY_PORT: String(notifyPort),
    SUPPLIER_TIMEOUT_MS: '2000',
    PROVISIONING_RETRY_WINDOW_MS: '60000',
  });
}, 60_000);

afterAll(async () => {
  await env?.cleanup();
  await sim?.close();
  recorder?.closeAllConnections();
  await new Promise((resolve) => recorder?.close(resolve));
  rmSync(simDir, { recursive: true, force: true });
  pki?.cleanup();
});

async function provision(sku = 'ESIM-FR-1GB') {
  const orderId = newId('ord');
  const from = recorded.length;
  await env.publishPaid({ orderId, supplierSku: sku });
  await until(async () => (await env.results(orderId)).length > 0, `the result of ${orderId}`, 20_000);
  const [result] = await env.results(orderId);
  return { orderId, result: result!, from };
}

function expectWireHeaders(call: Recorded): void {
  expect(call.clientAuthorized).toBe(true);
  expect(call.headers['content-type']).toBe('application/json');
  expect(call.headers['x-admin-protocol']).toMatch(/^gsma\/rsp\/v2\.\d+\.\d+$/);
  expect(Object.keys(call.body.header).sort()).toEqual(['functionCallIdentifier', 'functionRequesterIdentifier']);
  expect(call.body.header.functionRequesterIdentifier).toBe(requesterId);
  expect(call.body.header.functionCallIdentifier).toMatch(/^\S{1,256}$/);
}

describe('ES2+ calls to the SM-DP+ over mutual TLS', () => {
  it('when an order is paid, then DownloadOrder then ConfirmOrder(releaseFlag) go out in SGP.22 form and the activation code is built from the answer', async () => {
    const { orderId, result, from } = await provision();
    expect(result.type).toBe('provisioning.succeeded');
    const [download, ...moreDownloads] = callsOf('downloadOrder', from);
    const [confirm, ...moreConfirms] = callsOf('confirmOrder', from);
    expect([moreDownloads.length, moreConfirms.length]).toEqual([0, 0]);
    expectWireHeaders(download!);
    expectWireHeaders(confirm!);
    expect(download!.body).toEqual({ header: download!.body.header, profileType: 'esim-data' });
    const data = result.data as { iccid: string; smdpAddress: string; matchingId: string; activationCode: string };
    expect(confirm!.body).toEqual({ header: confirm!.body.header, iccid: data.iccid, releaseFlag: true });
    expect(confirm!.body.header.functionCallIdentifier).not.toBe(download!.body.header.functionCallIdentifier);
    expect(data.activationCode).toBe(`LPA:1$${data.smdpAddress}$${data.matchingId}`);
    const simView = await (await fetch(`http://127.0.0.1:${sim.ports.http.api}/simulator/esims/${data.iccid}`)).json();
    expect(simView).toMatchObject({ iccid: data.iccid, status: 'released', bundles: [{ reference: orderId }] });
  });

  it('when DownloadOrder’s answer is lost, then the retry reuses its functionCallIdentifier and the SM-DP+ answers the same profile', async () => {
    fault('downloadOrder', { kind: 'forward_then_drop' });
    const { result, from } = await provision();
    expect(result.type).toBe('provisioning.succeeded');
    const downloads = callsOf('downloadOrder', from);
    expect(downloads).toHaveLength(2);
    expect(downloads[1]!.body).toEqual(downloads[0]!.body);
    const confirms = callsOf('confirmOrder', from);
    expect(confirms).toHaveLength(1);
    expect(confirms[0]!.body.iccid).toBe((result.data as { iccid: string }).iccid);
  });

  it('when the SM-DP+ answered DownloadOrder and died before ConfirmOrder, then the retry confirms the same ICCID under the same call id', async () => {
    fault('confirmOrder', { kind: 'drop' }, { kind: 'drop' });
    const { result, from } = await provision();
    expect(result.type).toBe('provisioning.succeeded');
    expect(callsOf('downloadOrder', from)).toHaveLength(1);
    const confirms = callsOf('confirmOrder', from);
    expect(confirms).toHaveLength(3);
    expect(new Set(confirms.map((call) => JSON.stringify(call.body))).size).toBe(1);
    expect(confirms[0]!.body.iccid).toBe((result.data as { iccid: string }).iccid);
  });

  it.each([
    ['Failed 8.2.5 / 3.9 (unknown profile type)', es2Answer('Failed', {}, { subjectCode: '8.2.5', reasonCode: '3.9', message: 'Unknown profile type' })],
    ['Failed 8.1 / 2.2 (mandatory element missing)', es2Answer('Failed', {}, { subjectCode: '8.1', reasonCode: '2.2' })],
    ['Failed 1.2 / 1.2 (not allowed)', es2Answer('Failed', {}, { subjectCode: '1.2', reasonCode: '1.2' })],
  ])('when DownloadOrder is refused for good (%s), then the order fails at once as rejected', async (_, body) => {
    fault('downloadOrder', { kind: 'answer', status: 200, body });
    const { orderId, result, from } = await provision();
    expect(result).toMatchObject({ type: 'provisioning.failed', data: { orderId, reason: failureReasons.rejected } });
    expect(callsOf('downloadOrder', from)).toHaveLength(1);
    expect(callsOf('confirmOrder', from)).toHaveLength(0);
    expect(await env.supplierCall(orderId)).toMatchObject({ state: 'failed', attempts: 1 });
  });

  it.each([
    ['Failed 8.2.5 / 3.7 (no profile available now)', 200, es2Answer('Failed', {}, { subjectCode: '8.2.5', reasonCode: '3.7' })],
    ['Failed 8.1 / 4.2 (execution error)', 200, es2Answer('Failed', {}, { subjectCode: '8.1', reasonCode: '4.2' })],
    ['Expired', 200, es2Answer('Expired', {}, { subjectCode: '8.1', reasonCode: '3.9' })],
    ['an unknown status', 200, es2Answer('Executed-Maybe', { iccid: '89000000000000000009' })],
    ['Failed without statusCodeData', 200, es2Answer('Failed')],
    ['success without the mandatory iccid', 200, es2Answer('Executed-Success')],
    ['an ICCID that is not digits', 200, es2Answer('Executed-Success', { iccid: 'not-an-iccid' })],
    ['a body that is not JSON', 200, '<html>oops</html>'],
    ['no response header', 200, JSON.stringify({ iccid: '89000000000000000009' })],
    ['HTTP 503 without ES2+ body', 503, 'Service Unavailable'],
  ])('when DownloadOrder answers %s, then it is transient: retried under the same call id, and the order is provisioned', async (_, status, body) => {
    fault('downloadOrder', { kind: 'answer', status, body });
    const { orderId, result, from } = await provision();
    expect(result.type).toBe('provisioning.succeeded');
    const downloads = callsOf('downloadOrder', from);
    expect(downloads).toHaveLength(2);
    expect(downloads[1]!.body.header.functionCallIdentifier).toBe(downloads[0]!.body.header.functionCallIdentifier);
    expect((await env.supplierCall(orderId))?.attempts).toBe(2);
  });

  it('when ConfirmOrder is refused for good, then the order fails and the reserved profile is cancelled at the SM-DP+', async () => {
    fault('confirmOrder', { kind: 'answer', status: 200, body: es2Answer('Failed', {}, { subjectCode: '8.2.1', reasonCode: '3.8' }) });
    const { orderId, result, from } = await provision();
    expect(result).toMatchObject({ type: 'provisioning.failed', data: { orderId, reason: failureReasons.rejected } });
    const [cancel] = callsOf('cancelOrder', from);
    expectWireHeaders(cancel!);
    const iccid = callsOf('confirmOrder', from)[0]!.body.iccid as string;
    expect(cancel!.body).toEqual({ header: cancel!.body.header, iccid, finalProfileStatusIndicator: 'Available' });
  });

  it('when the connectivity provider refuses the bundle (FAIL- SKU), then the released profile is cancelled Unavailable', async () => {
    const { result, from } = await provision('FAIL-ESIM-FR');
    expect(result.type).toBe('provisioning.failed');
    const [cancel] = callsOf('cancelOrder', from);
    expect(cancel!.body).toMatchObject({ finalProfileStatusIndicator: 'Unavailable' });
  });
});

describe('TLS toward the SM-DP+', () => {
  it('when the SM-DP+ presents a certificate not under SMDP_CA, then each call is a transient TLS failure and the order fails after the window, never crashing', async () => {
    const other = await createTestEnv();
    try {
      await other.start({
        SMDP_ES2_URL: `https://127.0.0.1:${(recorder.address() as AddressInfo).port}`,
        CONNECTIVITY_URL: `http://127.0.0.1:${sim.ports.http.api}`,
        SMDP_CLIENT_CERT: pki.rogue.certFile,
        SMDP_CLIENT_KEY: pki.rogue.keyFile,
        // Trusting only the rogue CA: the recorder's certificate does not verify.
        SMDP_CA: pki.rogue.certFile.replace('rogue.pem', 'rogue-ca.pem'),
        PROVISIONING_RETRY_WINDOW_MS: '1500',
      });
      const orderId = newId('ord');
      await other.publishPaid({ orderId, supplierSku: 'ESIM-FR-1GB' });
      await until(async () => (await other.results(orderId)).length > 0, 'the failure', 20_000);
      expect((await other.results(orderId))[0]).toMatchObject({ type: 'provisioning.failed', data: { reason: failureReasons.retryWindowOver } });
      expect((await other.supplierCall(orderId))?.lastError).toMatch(/TLS failure/);
    } finally {
      await other.cleanup();
    }
  });
});

describe('HandleDownloadProgressInfo on ES2_NOTIFY_PORT over mutual TLS', () => {
  const notifyUrl = () => `https://127.0.0.1:${notifyPort}/gsma/rsp2/es2plus/handleDownloadProgressInfo`;
  const post = (body: string, identity: 'smdp' | 'rogue' | 'none' = 'smdp') =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: any }>((resolve, reject) => {
      const leaf = identity === 'none' ? undefined : pki[identity];
      const req = httpsRequest(
        notifyUrl(),
        { method: 'POST', ca: pki.ca, ...(leaf ? { cert: leaf.cert, key: leaf.key } : {}), agent: false, headers: { 'content-type': 'application/json', 'x-admin-protocol': 'gsma/rsp/v2.5.0' } },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => parts.push(part));
          res.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const progress = (iccid: string, overrides: Record<string, unknown> = {}) => ({
    header: { functionRequesterIdentifier: 'smdp-vendor', functionCallIdentifier: `hdpi-${newId('evt')}` },
    eid: '89049032123451234512345678901235',
    iccid,
    profileType: 'esim-data',
    timestamp: new Date().toISOString(),
    notificationPointId: 4,
    notificationPointStatus: { status: 'Executed-Success' },
    ...overrides,
  });
  const recordedFor = async (iccid: string) =>
    (await env.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM provisioning.es2_notifications WHERE iccid = $1', [iccid])).rows[0]!.n;
  const eventsFor = async (iccid: string) =>
    (await env.pool.query<{ payload: any }>(`SELECT payload FROM provisioning.outbox WHERE payload->>'type' = 'provisioning.esim.progress' AND payload->'data'->>'iccid' = $1`, [iccid])).rows.map(
      (row) => row.payload.data,
    );

  it('when the SM-DP+ reports an installation, then 204 once recorded; the same functionCallIdentifier again is 204 and recorded once', async () => {
    const iccid = '89000000000000000108';
    const body = JSON.stringify(progress(iccid));
    const first = await post(body);
    expect(first.status).toBe(204);
    expect(first.headers['x-admin-protocol']).toMatch(/^gsma\/rsp\/v2\./);
    expect((await post(body)).status).toBe(204);
    expect(await recordedFor(iccid)).toBe(1);
    expect(await eventsFor(iccid)).toEqual([expect.objectContaining({ iccid, effect: 'installed', notificationPoint: 4, eid: '89049032123451234512345678901235' })]);
  });

  it('when a download fails at point 3, a deletion is reported, or the point is a string, then each maps to its effect', async () => {
    const iccid = '89000000000000000116';
    const failed = progress(iccid, {
      notificationPointId: '3',
      notificationPointStatus: { status: 'Failed', statusCodeData: { subjectCode: '8.1', reasonCode: '4.2', message: 'Download failed' } },
    });
    expect((await post(JSON.stringify(failed))).status).toBe(204);
    expect((await post(JSON.stringify(progress(iccid, { notificationPointId: 5 })))).status).toBe(204);
    expect((await post(JSON.stringify(progress(`${iccid.slice(0, 19)}F`, { notificationPointId: 1 })))).status).toBe(204);
    const events = await eventsFor(iccid);
    expect(events.map((event) => [event.effect, event.notificationPoint, event.reasonCode])).toEqual([
      ['install_failed', 3, '4.2'],
      ['deleted', 5, null],
    ]);
  });

  it.each([
    ['not JSON', '{oops', 400, '2.1'],
    ['no iccid', JSON.stringify({ ...progress('x'), iccid: undefined }), 200, '2.2'],
    ['no header', JSON.stringify({ ...progress('89000000000000000124'), header: undefined }), 200, '2.2'],
    ['a malformed EID', JSON.stringify(progress('89000000000000000124', { eid: '123' })), 200, '2.1'],
    ['no notificationPointStatus', JSON.stringify({ ...progress('89000000000000000124'), notificationPointStatus: undefined }), 200, '2.2'],
    ['a timestamp that is no date', JSON.stringify(progress('89000000000000000124', { timestamp: 'yesterday' })), 200, '2.1'],
  ])('when the call has %s, then it is refused with SGP.22’s error shape and nothing is recorded', async (_, body, status, reasonCode) => {
    const answer = await post(body);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body.header.functionExecutionStatus).toMatchObject({ status: 'Failed', statusCodeData: { reasonCode } });
    expect(answer.body.header.functionExecutionStatus.statusCodeData.subjectCode).toMatch(/^\d+(\.\d+)*$/);
    expect(await recordedFor('89000000000000000124')).toBe(0);
  });

  it.each([
    ['no client certificate', 'none' as const],
    ['a certificate under another CA', 'rogue' as const],
  ])('when the caller presents %s, then 403 in SGP.22’s error shape and nothing is recorded', async (_, identity) => {
    const iccid = '89000000000000000132';
    const answer = await post(JSON.stringify(progress(iccid)), identity);
    expect(answer.status).toBe(403);
    expect(answer.body.header.functionExecutionStatus).toMatchObject({ status: 'Failed', statusCodeData: { reasonCode: '1.1' } });
    expect(await recordedFor(iccid)).toBe(0);
  });

  it('when the simulator’s traveller installs an eSIM, then the SM-DP+ side calls back over mutual TLS and provisioning records points 3 and 4', async () => {
    const { result } = await provision();
    const iccid = (result.data as { iccid: string }).iccid;
    const answer = await fetch(`http://127.0.0.1:${sim.ports.http.api}/simulator/esims/${iccid}/install`, { method: 'POST' });
    expect(answer.status).toBe(200);
    expect((await eventsFor(iccid)).map((event) => [event.notificationPoint, event.effect])).toEqual([
      [3, 'none'],
      [4, 'installed'],
    ]);
  });
});

// The provisioning instance's own ES2+ port is the pre-reserved one.
it('when provisioning started, then its ES2+ listener is on ES2_NOTIFY_PORT', () => {
  expect(provisioning.ports.http['es2-notify']).toBe(notifyPort);
});
