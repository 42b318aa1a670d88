import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { z } from 'zod';
import {
  adminProtocol,
  cancelOrder,
  confirmOrder,
  downloadOrder,
  isExecuted,
  refusalKind,
  responseHeader,
  type Es2Function,
} from '@esim/es2plus';
import { metrics } from '@esim/telemetry';
import type { SmdpFailure, SmdpPort, SmdpResult } from './smdp.js';

const meter = metrics.getMeter('provisioning');
const calls = meter.createCounter('provisioning_smdp_calls_total', { description: 'ES2+ calls to the SM-DP+, by function and outcome' });
const duration = meter.createHistogram('provisioning_smdp_call_duration_ms', { description: 'ES2+ call duration, by function and outcome', unit: 'ms' });

const maxResponseBytes = 64 * 1024;
/** Connections kept to the SM-DP+; also how many stale ones a call may meet in a row. */
const pooledSockets = 16;
const maxDetailChars = 500;

/** The client's identity and trust: PEM text (read from SMDP_CLIENT_CERT/KEY/CA at boot). Absent: plain HTTP or system trust. */
export interface Es2Tls {
  cert: string;
  key: string;
  ca: string;
}

export interface Es2ClientOptions {
  /** SMDP_ES2_URL: the functions live under `<baseUrl>/gsma/rsp2/es2plus/`. */
  baseUrl: string;
  /** SMDP_REQUESTER_ID, sent as functionRequesterIdentifier. */
  requesterId: string;
  timeoutMs: number;
  tls?: Es2Tls | undefined;
  /** The SM-DP+ address for activation codes when ConfirmOrder's answer names none (it is optional in SGP.22). */
  defaultSmdpAddress: string;
}

type Raw = { kind: 'answer'; status: number; headers: IncomingMessage['headers']; body: string } | SmdpFailure;

/**
 * The SM-DP+ over GSMA ES2+ (SGP.22 §5.3, JSON binding §6.5): each function
 * is a POST of its declared request (header with our requester id and the
 * caller's call id) to its declared path, with `Content-Type:
 * application/json` and `X-Admin-Protocol`, over mutual TLS when
 * certificates are given (the server checked against SMDP_CA only). The
 * answer must be the declared HTTP status, JSON, with a response header;
 * `Executed-Success`/`Executed-WithWarning` with the declared fields is
 * success, any other status a refusal sorted by `refusalKind`. Anything
 * else (unparseable, a missing field, an unexpected HTTP status, a TLS or
 * network failure, a timeout) is a transient failure: it never throws.
 */
export function createEs2PlusClient(options: Es2ClientOptions): SmdpPort {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl.slice(0, -1) : options.baseUrl);
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: pooledSockets, ...(options.tls ? { cert: options.tls.cert, key: options.tls.key, ca: options.tls.ca } : {}) })
    : new HttpAgent({ keepAlive: true, maxSockets: pooledSockets });

  /**
   * One POST under one deadline for the whole call, answer included. A kept-
   * alive connection the SM-DP+ closed while idle fails the first request
   * written to it (ECONNRESET, EPIPE) before the server read a byte: the
   * request is sent again on a fresh connection within the same deadline.
   * Safe for every ES2+ function: a repeated functionCallIdentifier answers
   * what it answered (SGP.22 §6.5.1.4), and the server never saw this one.
   */
  function post(path: string, body: string): Promise<Raw> {
    const url = new URL(base.pathname.replace(/\/$/, '') + path, base);
    const send = secure ? httpsRequest : httpRequest;
    return new Promise<Raw>((resolve) => {
      let settled = false;
      let current: ClientRequest | undefined;
      const finish = (raw: Raw) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(raw);
      };
      const timer = setTimeout(() => {
        current?.destroy();
        finish(transient('timeout', null, `no answer within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      timer.unref();
      const attempt = (staleRetriesLeft: number) => {
        let answered = false;
        const req = send(
          url,
          {
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              accept: 'application/json',
              'x-admin-protocol': adminProtocol,
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            answered = true;
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > maxResponseBytes) {
                res.destroy();
                finish(transient('bad_response', res.statusCode ?? null, 'an answer over 64 KiB'));
                return;
              }
              chunks.push(chunk);
            });
            res.on('end', () => finish({ kind: 'answer', status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', (error) => finish(networkFailure(error)));
          },
        );
        current = req;
        req.on('error', (error) => {
          if (!answered && req.reusedSocket && staleRetriesLeft > 0 && isStaleSocket(error) && !settled) attempt(staleRetriesLeft - 1);
          else finish(networkFailure(error));
        });
        req.end(body);
      };
      // Every pooled socket may have gone stale together (a quiet spell): one fresh connection after them is enough.
      attempt(pooledSockets);
    });
  }

  async function call<In extends z.ZodType, Out extends z.ZodType>(
    fn: Es2Function<In, Out>,
    callId: string,
    fields: Record<string, unknown>,
  ): Promise<SmdpResult<{ answer: z.output<Out> }>> {
    const started = performance.now();
    const payload = { header: { functionRequesterIdentifier: options.requesterId, functionCallIdentifier: callId }, ...fields };
    const result = sortAnswer(fn, await post(fn.path, JSON.stringify(payload)));
    const outcome = result.kind === 'ok' ? 'ok' : `${result.kind}_${result.cause}`;
    calls.add(1, { function: fn.name, outcome });
    duration.record(performance.now() - started, { function: fn.name, outcome });
    return result;
  }

  return {
    async downloadOrder({ callId, profileType }) {
      const result = await call(downloadOrder, callId, { profileType });
      return result.kind === 'ok' ? { kind: 'ok', statusCode: result.statusCode, iccid: result.answer.iccid } : result;
    },
    async confirmOrder({ callId, iccid }) {
      const result = await call(confirmOrder, callId, { iccid, releaseFlag: true });
      if (result.kind !== 'ok') return result;
      const { matchingId, smdpAddress, eid } = result.answer;
      return { kind: 'ok', statusCode: result.statusCode, matchingId, smdpAddress: smdpAddress ?? options.defaultSmdpAddress, eid: eid ?? null };
    },
    async cancelOrder({ callId, iccid, matchingId, finalProfileStatusIndicator }) {
      const result = await call(cancelOrder, callId, { iccid, ...(matchingId ? { matchingId } : {}), finalProfileStatusIndicator });
      return result.kind === 'ok' ? { kind: 'ok', statusCode: result.statusCode } : result;
    },
  };
}

/** Sorts one HTTP answer into success (the declared fields), a refusal (permanent or transient), or an unusable answer (transient). */
function sortAnswer<In extends z.ZodType, Out extends z.ZodType>(fn: Es2Function<In, Out>, raw: Raw): SmdpResult<{ answer: z.output<Out> }> {
  if (raw.kind !== 'answer') return raw;
  const { status, body } = raw;
  const json = parseJson(body);
  const header = responseHeader.safeParse(json && typeof json === 'object' ? (json as { header?: unknown }).header : undefined);
  if (!header.success) {
    // No ES2+ header at all: an HTTP-level failure (a proxy's 502, an HTML error page, a 5xx).
    const detail = `HTTP ${status} without an ES2+ response header`;
    return transient(status >= 500 || status === 429 || status === 408 ? 'unavailable' : 'bad_response', status, detail);
  }
  const { status: execution, statusCodeData } = header.data.functionExecutionStatus;
  if (!isExecuted(execution)) {
    const codes = statusCodeData ? ` ${statusCodeData.subjectCode}/${statusCodeData.reasonCode}${statusCodeData.message ? `: ${statusCodeData.message}` : ''}` : '';
    const known = execution === 'Failed' || execution === 'Expired';
    const kind = known ? refusalKind(execution, statusCodeData) : 'transient';
    return { kind, cause: known ? 'refused' : 'bad_response', statusCode: status, detail: `${execution}${codes}`.slice(0, maxDetailChars) };
  }
  if (status !== 200) return transient('bad_response', status, `HTTP ${status} for an executed ${fn.name}`);
  const answer = fn.response.safeParse(json);
  if (!answer.success) {
    const issue = answer.error.issues[0];
    return transient('bad_response', status, `${fn.name} answer unusable: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'invalid'}`.slice(0, maxDetailChars));
  }
  return { kind: 'ok', statusCode: status, answer: answer.data };
}

function transient(cause: SmdpFailure['cause'], statusCode: number | null, detail: string): SmdpFailure {
  return { kind: 'transient', cause, statusCode, detail };
}

const tlsCodes = /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/;

function errorCode(error: unknown): string | undefined {
  return error && typeof error === 'object' && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** How a request written to a connection the server had already closed fails. */
function isStaleSocket(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ECONNRESET' || code === 'EPIPE';
}

function networkFailure(error: unknown): SmdpFailure {
  const code = errorCode(error);
  if (code && tlsCodes.test(code)) return transient('tls_error', null, `TLS failure: ${code}`);
  return transient('network_error', null, `network error: ${code ?? (error instanceof Error ? error.message.slice(0, 200) : 'unknown')}`);
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
