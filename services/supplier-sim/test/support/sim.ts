import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { supplierSimService } from '../../src/app.js';
import type { Config } from '../../src/config.js';

export const callbackSecret = 'test-callback-secret-0123456789';

const cleanups: Array<() => Promise<void> | void> = [];

/** Stops every simulator and receiver a test file started and removes its data folders. */
export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

export function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sim-test-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Sim {
  url: string;
  app: RunningService<Config>;
  dataDir: string;
}

/** A simulator on a free port with its own data folder (or the given one, to test a restart). */
export async function startSim(env: Record<string, string> = {}): Promise<Sim> {
  const dataDir = env.SUPPLIER_SIM_DATA_DIR ?? newDataDir();
  const app = await startService(supplierSimService, {
    logger: createLogger('supplier-sim', 'silent'),
    env: {
      NODE_ENV: 'test',
      PORT: '0',
      HEALTH_PORT: '0',
      HOST: '127.0.0.1',
      SUPPLIER_LATENCY_MS: '0',
      SUPPLIER_SMDP_ADDRESS: 'smdp.test.example',
      SUPPLIER_CALLBACK_SECRET: callbackSecret,
      ...env,
      SUPPLIER_SIM_DATA_DIR: dataDir,
    },
  });
  let closed = false;
  const close = app.close;
  app.close = async () => {
    if (closed) return;
    closed = true;
    await close();
  };
  cleanups.push(() => app.close());
  return { url: `http://127.0.0.1:${app.ports.http.api}`, app, dataDir };
}

export async function call(url: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

export const post = (url: string, body?: unknown) => call(url, 'POST', body);

let counter = 0;
export const uniqueReference = () => `ord_test_${process.pid}_${Date.now()}_${++counter}`;

/** Orders an eSIM and returns its profile (201). */
export async function newEsim(sim: Sim, size: { dataMb?: number; validityDays?: number } = {}, sku = 'ESIM-FR-5GB-30D') {
  const reference = uniqueReference();
  const answer = await post(`${sim.url}/v1/esims`, { sku, reference, ...size });
  if (answer.status !== 201) throw new Error(`ordering an eSIM answered ${answer.status}`);
  return answer.body as { reference: string; iccid: string; smdpAddress: string; matchingId: string; activationCode: string };
}

/** Adds a top-up bundle and returns its reference (201). */
export async function newTopUp(sim: Sim, iccid: string, size: { dataMb?: number; validityDays?: number } = {}): Promise<string> {
  const reference = uniqueReference();
  const answer = await post(`${sim.url}/v1/esims/${iccid}/bundles`, { sku: 'ESIM-FR-1GB-7D', reference, ...size });
  if (answer.status !== 201) throw new Error(`adding a bundle answered ${answer.status}`);
  return reference;
}

export interface Received {
  raw: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The signature checked here from scratch: HMAC-SHA256 of "<t>.<raw body>", lowercase hex. */
  signatureValid: boolean;
  timestamp: number;
}

/**
 * A real platform stand-in: records every notification, checks its
 * signature independently of the simulator's code, and answers `status`
 * (202 unless changed). With `hold`, answers wait until `release()`.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const held: Array<() => void> = [];
  const receiver = { received, status: 202, hold: false, url: '', release: () => held.splice(0).forEach((answer) => answer()) };
  const server = createServer(async (req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const header = String(req.headers['x-supplier-signature'] ?? '');
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
    const timestamp = Number(match?.[1] ?? 0);
    const expected = createHmac('sha256', callbackSecret).update(`${timestamp}.${raw}`).digest('hex');
    const body = JSON.parse(raw) as Record<string, unknown>;
    received.push({ raw, body, headers: req.headers, signatureValid: match?.[2] === expected, timestamp });
    const status = match?.[2] === expected ? receiver.status : 401;
    const answer = () => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ id: body.id, status: 'accepted' }));
    if (receiver.hold) held.push(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/supplier/v1/notifications`;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        receiver.release();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return receiver;
}

/** Polls until `check` holds (no fixed sleeps). */
export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
