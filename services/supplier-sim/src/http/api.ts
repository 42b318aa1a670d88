import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { metrics, type Logger } from '@esim/telemetry';
import type { IssuedEsim, SimulatedSupplier } from '../domain/simulatedSupplier.js';

const maxBodyBytes = 16 * 1024;

const answers = metrics.getMeter('supplier-sim').createCounter('supplier_sim_requests_total', { description: 'Supplier API answers, by outcome' });

const orderRequest = z.object({
  sku: z.string().min(1).max(64),
  reference: z.string().min(1).max(128),
});

interface Answer {
  status: number;
  body: unknown;
  outcome: string;
}

const notFound: Answer = { status: 404, body: { error: 'not_found' }, outcome: 'not_found' };

const esimView = (esim: IssuedEsim) => ({
  reference: esim.reference,
  iccid: esim.iccid,
  smdpAddress: esim.smdpAddress,
  matchingId: esim.matchingId,
  activationCode: esim.activationCode,
});

export interface SupplierApi {
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * The supplier's HTTP API on node:http: `POST /v1/esims` and
 * `GET /v1/esims/{reference}`. Every answer waits `latencyMs` first, as a
 * real upstream would; bodies are bounded and requests time out.
 */
export function createSupplierApi(options: { supplier: SimulatedSupplier; latencyMs: number; logger: Logger }): SupplierApi {
  const { supplier, latencyMs, logger } = options;

  async function route(req: IncomingMessage): Promise<Answer> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/v1/esims' && req.method === 'POST') return orderEsim(await readJson(req));
    const match = /^\/v1\/esims\/([^/]+)$/.exec(path);
    if (match?.[1] && req.method === 'GET') {
      const esim = supplier.find(decodePathSegment(match[1]));
      return esim ? { status: 200, body: esimView(esim), outcome: 'found' } : notFound;
    }
    return notFound;
  }

  function orderEsim(json: unknown): Answer {
    const parsed = orderRequest.safeParse(json);
    if (!parsed.success) {
      return { status: 400, body: { error: 'bad_request', message: 'Send a JSON object with string fields "sku" and "reference".' }, outcome: 'bad_request' };
    }
    const { sku, reference } = parsed.data;
    const answer = supplier.order(sku, reference);
    switch (answer.kind) {
      case 'issued':
        if (!answer.replayed) logger.info({ reference, sku, iccid: answer.esim.iccid }, 'eSIM issued');
        return { status: answer.replayed ? 200 : 201, body: esimView(answer.esim), outcome: answer.replayed ? 'replayed' : 'issued' };
      case 'rejected':
        return { status: 422, body: { error: 'sku_rejected', message: answer.message }, outcome: 'rejected' };
      case 'unavailable':
        return { status: 503, body: { error: 'temporarily_unavailable', message: answer.message }, outcome: 'unavailable' };
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: Answer;
    try {
      answer = await route(req);
    } catch (error) {
      if (!(error instanceof RequestBodyError)) throw error;
      answer = error.answer;
      // The rest of an oversized body is not read; the connection cannot be reused.
      if (answer.status === 413) res.setHeader('connection', 'close');
    }
    if (latencyMs > 0) await sleep(latencyMs);
    answers.add(1, { outcome: answer.outcome });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'supplier-sim request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal"}');
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
      }),
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}

class RequestBodyError extends Error {
  constructor(readonly answer: Answer) {
    super(answer.outcome);
  }
}

/** Reads at most 16 KiB and parses it as JSON. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const tooLarge = new RequestBodyError({ status: 413, body: { error: 'payload_too_large', message: 'The body is over 16 KiB.' }, outcome: 'too_large' });
  if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) throw tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) throw tooLarge;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RequestBodyError({ status: 400, body: { error: 'bad_request', message: 'The body is not valid JSON.' }, outcome: 'bad_request' });
  }
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
