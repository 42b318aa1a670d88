/** Sends fuzz requests over keep-alive connections, a bounded number at a time, and checks each answer against §3 and its document. */
import { randomInt } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { FuzzRequest, Operation } from './requests.js';

export interface Received {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });
/** A loopback source of its own: the fuzz's registrations spend this address's register limit, not 127.0.0.1's (the demo's). */
const localAddress = `127.${randomInt(1, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}`;

export function send(baseUrl: string, fuzz: FuzzRequest, timeoutMs = 30_000): Promise<Received> {
  const url = new URL(baseUrl);
  const headers = { ...fuzz.headers, ...(fuzz.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(fuzz.body)) }) };
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: fuzz.path, method: fuzz.method, headers, agent, localAddress, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(fuzz.body);
  });
}

export function closeConnections(): void {
  agent.destroy();
}

/** What is wrong with an answer, by §3 and the operation's document; empty when nothing is. */
export function faultsOf(answer: Received, op: Operation): string[] {
  const faults: string[] = [];
  if (answer.status >= 500) faults.push(`status ${answer.status} (a 5xx)`);
  if (!op.documented.has(answer.status)) faults.push(`status ${answer.status} is not documented (${[...op.documented].join(', ')})`);
  const requestId = answer.headers['x-request-id'];
  if (typeof requestId !== 'string' || requestId.length === 0) faults.push('no X-Request-Id');
  if (answer.headers['cache-control'] !== 'no-store') faults.push(`cache-control ${String(answer.headers['cache-control'])}`);
  if (answer.headers['x-content-type-options'] !== 'nosniff') faults.push('no nosniff');
  if (answer.status >= 400) {
    if (!String(answer.headers['content-type']).startsWith('application/problem+json')) faults.push(`error as ${String(answer.headers['content-type'])}`);
    let body: any;
    try {
      body = JSON.parse(answer.text);
    } catch {
      faults.push('error body is not JSON');
    }
    if (body) {
      if (body.status !== answer.status) faults.push(`problem status ${body.status}`);
      if (typeof body.code !== 'string' || typeof body.type !== 'string' || typeof body.title !== 'string' || typeof body.detail !== 'string') faults.push('problem fields missing');
      if (body.requestId !== requestId) faults.push('problem requestId differs from X-Request-Id');
    }
  }
  return faults;
}

/** Runs `work` over `items`, `concurrency` at a time, in order of start. */
export async function inPool<T>(items: T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
