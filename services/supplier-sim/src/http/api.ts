import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { adminProtocol } from '@esim/es2plus';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { metrics, type Logger } from '@esim/telemetry';
import type { SimulatedSupplier } from '../domain/simulatedSupplier.js';
import type { TravellerControl } from '../domain/travellerControl.js';
import { StateWriteError, type StateFile } from '../store/stateFile.js';
import type { SimulatedSmdp } from '../domain/simulatedSmdp.js';
import { controlRoute } from './controlRoutes.js';
import { es2Route } from './es2Routes.js';
import { notFound, RequestBodyError, type Answer } from './json.js';
import { supplierRoute } from './supplierRoutes.js';

const answers = metrics.getMeter('supplier-sim').createCounter('supplier_sim_requests_total', { description: 'Supplier and control API answers, by outcome' });

const stateNotSaved: Answer = {
  status: 503,
  body: { error: 'temporarily_unavailable', message: 'The supplier could not save its state; retry.' },
  outcome: 'state_not_saved',
};

export interface SupplierApi {
  listen(port: number, host: string): Promise<number>;
  /** A second, HTTPS listener for the same APIs; ES2+ calls on it need a client certificate under `tls.ca`. */
  listenTls(port: number, host: string, tls: { cert: string; key: string; ca: string }): Promise<number>;
  close(): Promise<void>;
}

export interface ApiOptions {
  supplier: SimulatedSupplier;
  smdp: SimulatedSmdp;
  /** The share of SM-DP+ calls refused at random (SUPPLIER_FAILURE_RATE). */
  failsAtRandom: () => boolean;
  store: StateFile;
  /** Absent when SUPPLIER_NOTIFICATION_URL is not set: the control API then answers 503. */
  control: TravellerControl | undefined;
  latencyMs: number;
  logger: Logger;
}

/**
 * The simulator's one HTTP port on node:http: the supplier API (`/v1/…`,
 * every answer delayed by `latencyMs` as a real upstream's) and the control
 * API (`/simulator/…`, answered as soon as the platform took the
 * notifications). A change is on disk before its answer leaves; bodies are
 * bounded and requests time out.
 */
export function createSupplierApi(options: ApiOptions): SupplierApi {
  const { store, latencyMs, logger } = options;

  async function route(req: IncomingMessage): Promise<{ answer: Answer; delayed: boolean }> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const secure = 'encrypted' in req.socket && req.socket.encrypted === true;
    const es2Answer = es2Route(req, path, { smdp: options.smdp, failsAtRandom: options.failsAtRandom, requireClientCert: secure, logger });
    if (es2Answer) {
      const answer = await es2Answer;
      await store.persist();
      return { answer, delayed: true };
    }
    const supplierAnswer = supplierRoute(req, path, options);
    if (supplierAnswer) {
      const answer = await supplierAnswer;
      // The platform must never see an answer the next start would contradict.
      await store.persist();
      return { answer, delayed: true };
    }
    const controlAnswer = controlRoute(req, path, { state: store.state, control: options.control });
    return { answer: controlAnswer ? await controlAnswer : notFound, delayed: !controlAnswer };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: Answer;
    let delayed = true;
    try {
      ({ answer, delayed } = await route(req));
    } catch (error) {
      if (error instanceof StateWriteError) {
        logger.error({ err: error }, 'supplier-sim could not save its state');
        answer = stateNotSaved;
      } else if (error instanceof RequestBodyError) {
        answer = error.answer;
        // The rest of an oversized body is not read; the connection cannot be reused.
        if (answer.status === 413) res.setHeader('connection', 'close');
      } else {
        throw error;
      }
    }
    if (delayed && latencyMs > 0) await sleep(latencyMs);
    answers.add(1, { outcome: answer.outcome });
    const es2 = 'es2' in answer ? { 'x-admin-protocol': adminProtocol } : {};
    res.writeHead(answer.status, { 'content-type': 'application/json', ...es2 }).end(JSON.stringify(answer.body));
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'supplier-sim request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal"}');
    });
  };
  const servers: Server[] = [];
  const serve = (server: Server, port: number, host: string) =>
    new Promise<number>((resolve, reject) => {
      server.requestTimeout = 30_000;
      server.headersTimeout = 10_000;
      servers.push(server);
      server.once('error', reject);
      server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    });

  return {
    listen: (port, host) => serve(createServer(listener), port, host),
    listenTls: (port, host, tls) => serve(createHttpsServer({ ...tls, requestCert: true, rejectUnauthorized: false }, listener), port, host),
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve, reject) => {
              server.close((error) => (error ? reject(error) : resolve()));
              server.closeIdleConnections();
            }),
        ),
      ).then(() => undefined),
  };
}
