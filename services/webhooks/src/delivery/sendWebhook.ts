import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { forbiddenAddressReason } from './addressPolicy.js';

export type SendResult =
  | { kind: 'response'; statusCode: number }
  /** Never sent: the URL is not allowed (no connection was made). */
  | { kind: 'refused'; reason: string }
  /** Sent or tried, without a status line in time: DNS, connect, TLS, timeout. */
  | { kind: 'error'; message: string };

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** WEBHOOK_ALLOW_INSECURE_URLS: http:// and private addresses allowed. */
  allowInsecure: boolean;
  resolve?: Resolver;
}

/**
 * POSTs one webhook. Unless insecure URLs are allowed, the URL must be
 * https and every address its host resolves to must be public; the
 * connection then goes to the address that was checked (a pinned lookup),
 * so a DNS answer that changes between check and connect (rebinding) cannot
 * steer it inside the cluster. One deadline covers DNS, connect, TLS and the
 * status line. The request runs with tracing suppressed: the caller's span
 * is the attempt's span, and no trace header or URL reaches a span or the
 * partner.
 */
export async function sendWebhook(options: SendOptions): Promise<SendResult> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return { kind: 'refused', reason: 'webhook URL is not a valid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { kind: 'refused', reason: `webhook URL scheme ${url.protocol} is not http(s)` };
  if (!options.allowInsecure && url.protocol !== 'https:') return { kind: 'refused', reason: 'webhook URL must use https' };

  const signal = AbortSignal.timeout(options.timeoutMs);
  const timedOut = (): SendResult => ({ kind: 'error', message: `no response within ${options.timeoutMs} ms` });
  let lookup: LookupFunction | undefined;
  if (!options.allowInsecure) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: Array<{ address: string; family: number }>;
    try {
      addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await abortable((options.resolve ?? systemResolver)(host), signal);
    } catch (error) {
      if (signal.aborted) return timedOut();
      return { kind: 'error', message: `DNS lookup of ${host} failed (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    if (addresses.length === 0) return { kind: 'error', message: `DNS lookup of ${host} returned no address` };
    for (const { address } of addresses) {
      const reason = forbiddenAddressReason(address);
      if (reason) return { kind: 'refused', reason: `webhook URL resolves to a private address (${address}, ${reason})` };
    }
    lookup = pinnedLookup(addresses[0]!);
  }
  return context.with(suppressTracing(context.active()), () => post(url, options, signal, lookup, timedOut));
}

function post(url: URL, options: SendOptions, signal: AbortSignal, lookup: LookupFunction | undefined, timedOut: () => SendResult): Promise<SendResult> {
  return new Promise((resolve) => {
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, {
      method: 'POST',
      headers: { ...options.headers, 'Content-Length': String(Buffer.byteLength(options.body)) },
      // A fresh connection per attempt: no pooled socket outlives the address check.
      agent: false,
      signal,
      ...(lookup ? { lookup } : {}),
    });
    request.on('response', (response) => {
      // The status line is the answer; the body is drained (and cut at the deadline) but never kept.
      response.on('error', () => {});
      response.resume();
      resolve({ kind: 'response', statusCode: response.statusCode ?? 0 });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      resolve(signal.aborted ? timedOut() : { kind: 'error', message: `request failed (${error.code ?? error.message})` });
    });
    request.end(options.body);
  });
}

/** A lookup that answers with the one address already checked, in either callback form Node asks for. */
export function pinnedLookup(pinned: { address: string; family: number }): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}
