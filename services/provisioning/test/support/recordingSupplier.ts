import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startService, type RunningService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { supplierSimService } from '../../../supplier-sim/src/app.js';
import type { Config as SupplierConfig } from '../../../supplier-sim/src/config.js';

export interface RecordingSupplier {
  /** The URL provisioning is given as SUPPLIER_URL. */
  url: string;
  /** `POST /v1/esims` and `POST /v1/esims/{iccid}/bundles` calls the supplier received for this reference. */
  callsFor(reference: string): number;
  /** The simulator's own URL (its control API, `GET /simulator/esims/{iccid}`). */
  upstream: string;
  stop(): Promise<void>;
}

/**
 * The real supplier simulator (latency 0), in-process, behind a thin
 * recorder that counts each reference's calls before passing them on: the
 * tests assert what the supplier saw, not what provisioning says it did.
 */
export async function startRecordingSupplier(): Promise<RecordingSupplier> {
  // Its own state folder: the developer's var/supplier-sim is never touched, and test files never share one.
  const dataDir = mkdtempSync(join(tmpdir(), 'supplier-sim-'));
  const calls = new Map<string, number>();
  let upstream = '';

  // The recorder also plays the platform's notification endpoint (202 to everything), so the control API works.
  const recorder: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url === '/notifications') {
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"accepted"}');
        return;
      }
      if (req.method === 'POST' && (req.url === '/v1/esims' || /^\/v1\/esims\/\d+\/bundles$/.test(req.url ?? ''))) {
        const reference = (JSON.parse(body.toString('utf8')) as { reference?: string }).reference ?? '';
        calls.set(reference, (calls.get(reference) ?? 0) + 1);
      }
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers: { 'content-type': 'application/json' },
        ...(req.method === 'POST' ? { body } : {}),
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;

  const sim: RunningService<SupplierConfig> = await startService(supplierSimService, {
    logger: createLogger('supplier-sim', 'silent'),
    env: {
      NODE_ENV: 'test',
      PORT: '0',
      HEALTH_PORT: '0',
      HOST: '127.0.0.1',
      SUPPLIER_LATENCY_MS: '0',
      SUPPLIER_SIM_DATA_DIR: dataDir,
      SUPPLIER_CALLBACK_SECRET: 'test-supplier-callback-secret',
      SUPPLIER_NOTIFICATION_URL: `${url}/notifications`,
    },
  });
  upstream = `http://127.0.0.1:${sim.ports.http.api}`;

  return {
    url,
    upstream,
    callsFor: (reference) => calls.get(reference) ?? 0,
    async stop() {
      recorder.closeAllConnections();
      await new Promise((resolve) => recorder.close(resolve));
      await sim.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
