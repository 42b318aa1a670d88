import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  adminProtocol,
  failedAnswer,
  handleDownloadProgressInfo,
  reasonCodes,
  subjectCodes,
  type DownloadProgressInfo,
  type StatusCodeData,
} from '@esim/es2plus';
import type { HttpListener } from '@esim/service';
import type { Logger } from '@esim/telemetry';

const maxBodyBytes = 16 * 1024;

export interface NotifyServerOptions {
  port: number;
  host: string;
  /** PEM: the server's identity and the CA callers' client certificates must chain to. Absent: plain HTTP (development). */
  tls?: { cert: string; key: string; ca: string } | undefined;
  record(info: DownloadProgressInfo): Promise<{ duplicate: boolean }>;
  logger: Logger;
}

type Answer = { status: number; body?: unknown };

const refused = (status: number, data: StatusCodeData): Answer => ({ status, body: failedAnswer(data) });

/**
 * Provisioning's ES2+ listener (contract §8, ES2_NOTIFY_PORT): `POST
 * /gsma/rsp2/es2plus/handleDownloadProgressInfo`, checked against SGP.22's
 * declaration of the function (@esim/es2plus). With TLS, the caller's
 * client certificate must chain to SMDP_CA; a caller without one is refused
 * before its body is read. A valid call is answered 204 once recorded
 * (`record` commits); a refusal carries SGP.22's error shape (a response
 * header with functionExecutionStatus Failed and statusCodeData) and
 * records nothing: HTTP 200 for a call the function itself refuses (a
 * missing or invalid field, as SGP.22 §6.5 answers function failures), 400
 * for a body that is not JSON, 403 for an unauthenticated caller. Every
 * answer carries X-Admin-Protocol.
 */
export function notifyServer(options: NotifyServerOptions): HttpListener {
  const { logger } = options;

  async function route(req: IncomingMessage): Promise<Answer> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== handleDownloadProgressInfo.path) {
      req.resume();
      return refused(404, { subjectCode: subjectCodes.function, reasonCode: reasonCodes.unknown, message: 'Unknown ES2+ function.' });
    }
    if (req.method !== 'POST') {
      req.resume();
      return refused(405, { subjectCode: subjectCodes.function, reasonCode: reasonCodes.notAllowed, message: 'Use POST.' });
    }
    if (options.tls && !(req.socket as TLSSocket).authorized) {
      req.resume();
      return refused(403, { subjectCode: subjectCodes.functionRequester, reasonCode: reasonCodes.unknownAccess, message: 'A client certificate issued under the configured CA is required.' });
    }
    const text = await readBody(req);
    if (text === undefined) return refused(413, { subjectCode: subjectCodes.function, reasonCode: reasonCodes.invalid, message: 'The body is over 16 KiB.' });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return refused(400, { subjectCode: subjectCodes.function, reasonCode: reasonCodes.invalid, message: 'The body is not JSON.' });
    }
    const parsed = handleDownloadProgressInfo.request.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path.join('.') ?? '';
      const missing = issue?.code === 'invalid_type' && (issue as { input?: unknown }).input === undefined;
      return refused(200, {
        subjectCode: subjectOf(path),
        reasonCode: missing ? reasonCodes.mandatoryMissing : reasonCodes.invalid,
        ...(path ? { subjectIdentifier: path } : {}),
        message: `${path || 'body'}: ${issue?.message ?? 'invalid'}`.slice(0, 500),
      });
    }
    await options.record(parsed.data);
    return { status: 204 };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: Answer;
    try {
      answer = await route(req);
    } catch (error) {
      logger.error({ err: error }, 'ES2+ notification could not be recorded');
      // Nothing was recorded: the SM-DP+ retries (SGP.22 5.1.6.4: 4.2 execution error).
      answer = refused(500, { subjectCode: subjectCodes.function, reasonCode: reasonCodes.executionError, message: 'Not recorded; retry.' });
    }
    const headers = { 'content-type': 'application/json', 'x-admin-protocol': adminProtocol };
    if (answer.body === undefined) res.writeHead(answer.status, headers).end();
    else res.writeHead(answer.status, headers).end(JSON.stringify(answer.body));
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => res.destroy());
  };
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key, ca: options.tls.ca, requestCert: true, rejectUnauthorized: false }, listener)
    : createHttpServer(listener);
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  return {
    name: 'es2-notify',
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => resolve((server.address() as AddressInfo).port));
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/** The SGP.22 subject a failing field names: the ICCID, the EID, the profile type, else the function. */
function subjectOf(path: string): string {
  if (path === 'iccid') return subjectCodes.iccid;
  if (path === 'eid') return subjectCodes.eid;
  if (path === 'profileType') return subjectCodes.profileType;
  if (path.startsWith('header')) return subjectCodes.functionRequester;
  return subjectCodes.function;
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) {
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
