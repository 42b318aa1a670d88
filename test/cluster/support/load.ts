import { inject } from 'vitest';
import { call, type Answer, type CallOptions } from '../../e2e/support/client.js';

export const cluster = inject('cluster');

/** One answer a client received (status 0: the connection dropped or timed out), and when. */
export interface Observation {
  at: number;
  status: number;
  code?: string;
  gateway: number;
  what: 'order' | 'probe';
}

export const observations: Observation[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The suite allows 100 requests per 10 s per key; each key is held to 90 per 10.5 s, so a 429 is never the client's own doing.
const keyUse = new Map<string, number[]>();
async function pace(key: string): Promise<void> {
  for (;;) {
    const now = Date.now();
    const recent = (keyUse.get(key) ?? []).filter((at) => now - at < 10_500);
    if (recent.length < 90) return void keyUse.set(key, [...recent, now]);
    await sleep(recent[0]! + 10_500 - now);
  }
}

/** A partner API call to one gateway replica, bounded in time; a dropped or hung connection answers status 0. */
export async function send(gateway: number, key: string, path: string, options: CallOptions, what: Observation['what']): Promise<Answer> {
  await pace(key);
  const answer = await Promise.race([
    call(cluster.gatewayUrls[gateway]!, `/api/v1${path}`, { ...options, headers: { authorization: `Bearer ${key}`, ...options.headers } }),
    sleep(30_000).then(() => Promise.reject(new Error('no answer within 30 s'))),
  ]).catch((error: Error): Answer => ({ status: 0, headers: {}, body: { code: error.message }, text: error.message }));
  observations.push({ at: Date.now(), status: answer.status, code: answer.body?.code, gateway, what });
  return answer;
}

/** What the contract lets a client retry with the same clientRequestId: 503, 409 REQUEST_IN_PROGRESS, a dropped connection. */
export const retryable = (answer: Answer) => answer.status === 0 || answer.status === 503 || (answer.status === 409 && answer.body?.code === 'REQUEST_IN_PROGRESS');

/**
 * Places one order as a careful partner behind a load balancer does: the
 * same body (same clientRequestId) again on anything retryable, the next
 * attempt on the other gateway replica, with a growing pause (capped at 1 s).
 */
export async function placeOrder(key: string, body: object, first: number, deadlineMs = 300_000): Promise<Answer> {
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 0; ; attempt++) {
    const answer = await send((first + attempt) % 2, key, '/partner/orders', { body }, 'order');
    if (answer.status === 429) await sleep(1_000);
    else if (!retryable(answer) || Date.now() > deadline) return answer;
    else await sleep(Math.min(1_000, 100 * (attempt + 1)));
  }
}

/** Reads one page of orders from both gateways in turn every `everyMs` until stopped: what a dashboard polling the API sees. */
export function startProbe(key: string, everyMs = 250): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      await send(i % 2, key, '/partner/orders?limit=1', {}, 'probe');
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}
