import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './events.js';

/**
 * Checks that a webhook request came from the platform (contract §9) and
 * returns its event, typed by `type`. Pass the body exactly as received
 * (a parsed-then-reserialized body no longer matches its signature).
 *
 * With the Standard Webhooks headers present (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), those are checked, and a
 * timestamp more than `toleranceSeconds` away is refused (replay
 * protection); otherwise `X-SERVICE-Signature`. `scheme` forces one.
 * During a secret rotation's overlap both secrets sign (`webhook-signature:
 * v1,<new> v1,<old>`, `X-SERVICE-Signature-Previous`): either secret verifies.
 * Web Crypto only: runs on Node 20+, Deno, Bun and edge runtimes.
 */
export interface VerifyOptions {
  scheme?: 'auto' | 'standard' | 'service';
  /** Standard Webhooks only (default 300 s). */
  toleranceSeconds?: number;
  /** For tests: the current time in Unix seconds. */
  now?: number;
}

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

const encoder = new TextEncoder();

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

const bytesOf = (body: string | Uint8Array) => (typeof body === 'string' ? encoder.encode(body) : body);

function hexBytes(hex: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return undefined;
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}

function base64Bytes(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

const hmacKey = (raw: Uint8Array) => crypto.subtle.importKey('raw', raw as never, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);

/** subtle.verify compares in constant time. */
const matches = async (key: Awaited<ReturnType<typeof hmacKey>>, signature: Uint8Array, data: Uint8Array) =>
  crypto.subtle.verify('HMAC', key, signature as never, data as never);

async function checkService(body: Uint8Array, signature: string, secret: string): Promise<void> {
  const bytes = hexBytes(signature.trim());
  if (!bytes || !(await matches(await hmacKey(encoder.encode(secret)), bytes, body))) throw new WebhookVerificationError('X-SERVICE-Signature does not match the body');
}

async function checkStandard(body: Uint8Array, headers: HeaderBag, secret: string, options: VerifyOptions): Promise<void> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('webhook-timestamp is too far from now');
  }
  const keyBytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!keyBytes) throw new WebhookVerificationError('the secret is not a whsec_ secret');
  const key = await hmacKey(keyBytes);
  const signed = new Uint8Array([...encoder.encode(`${id}.${timestamp}.`), ...body]);
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    const bytes = version === 'v1' && value ? base64Bytes(value) : undefined;
    if (bytes && (await matches(key, bytes, signed))) return;
  }
  throw new WebhookVerificationError('webhook-signature does not match the body');
}

export async function verify(rawBody: string | Uint8Array, headers: HeaderBag, secret: string, options: VerifyOptions = {}): Promise<WebhookEvent> {
  const body = bytesOf(rawBody);
  const scheme = options.scheme ?? 'auto';
  const useStandard = scheme === 'standard' || (scheme === 'auto' && header(headers, 'webhook-signature') !== undefined);
  if (useStandard) await checkStandard(body, headers, secret, options);
  else {
    const signature = header(headers, 'x-service-signature');
    if (!signature) throw new WebhookVerificationError('no X-SERVICE-Signature or webhook-signature header');
    // During a secret rotation's overlap the old secret's signature travels beside the new one: either verifies.
    const previous = header(headers, 'x-service-signature-previous');
    try {
      await checkService(body, signature, secret);
    } catch (error) {
      if (!previous) throw error;
      await checkService(body, previous, secret);
    }
  }
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
  if (typeof event !== 'object' || event === null || typeof (event as WebhookEvent).type !== 'string' || typeof (event as WebhookEvent).id !== 'string') {
    throw new WebhookVerificationError('the signed body is not an event');
  }
  return event as WebhookEvent;
}

export const webhooks = { verify };
