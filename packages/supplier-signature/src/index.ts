import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The supplier's notification signature (contract §13):
 * `X-Supplier-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`,
 * keyed with SUPPLIER_CALLBACK_SECRET (UTF-8). The simulator signs with it and
 * the gateway verifies with it, so both sides agree byte for byte.
 */
export const signatureHeader = 'x-supplier-signature';

/** How far `t` may be from the receiver's clock, either way: 5 minutes. */
export const defaultToleranceSeconds = 300;

type Body = string | Uint8Array;

function digest(secret: string, timestamp: number, body: Body): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`, 'utf8')
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest();
}

/** The header value for `body` sent at `nowSeconds` (Unix seconds). */
export function sign(secret: string, body: Body, nowSeconds: number = Math.floor(Date.now() / 1000)): string {
  const timestamp = Math.floor(nowSeconds);
  return `t=${timestamp},v1=${digest(secret, timestamp, body).toString('hex')}`;
}

/** `t=…,v1=…` → its parts; undefined when malformed. Several `v1` entries are allowed (secret rotation). */
export function parseSignature(header: string): { timestamp: number; signatures: string[] } | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) return undefined;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/.test(value)) return undefined;
      signatures.push(value);
    }
    // Other schemes (v0, future versions) are ignored, as Stripe-style receivers do.
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

/**
 * True when `header` carries a `v1` HMAC of `<t>.<body>` under `secret` and
 * `t` is within `toleranceSeconds` of `nowSeconds`. Compares in constant time.
 */
export function verify(
  secret: string,
  header: string | undefined,
  body: Body,
  nowSeconds: number = Math.floor(Date.now() / 1000),
  toleranceSeconds: number = defaultToleranceSeconds,
): boolean {
  if (!header || !secret) return false;
  const parsed = parseSignature(header);
  if (!parsed) return false;
  if (Math.abs(nowSeconds - parsed.timestamp) > toleranceSeconds) return false;
  const expected = digest(secret, parsed.timestamp, body);
  // Every candidate is compared (no early exit), each in constant time.
  let matched = false;
  for (const candidate of parsed.signatures) {
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  return matched;
}
