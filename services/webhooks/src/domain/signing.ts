import { createHmac } from 'node:crypto';
import { livemodeOf } from '@esim/ids';
import type { PartnerEvent } from './delivery.js';

/**
 * The body partners receive (contract §9), serialized once: these exact
 * bytes are signed and sent, so a receiver verifying the raw body always
 * verifies what we signed. `livemode` (§14) comes from the event's account
 * id: a test account's events say false.
 */
export function webhookBody(event: PartnerEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), livemode: livemodeOf(event.partnerId), data: event.payload });
}

/** `Partner Platform` → `Partner-Platform-Webhooks/1.0`: a User-Agent product token has no spaces. */
export function userAgent(platformName: string): string {
  const token = platformName.replace(/[^A-Za-z0-9!#$%&'*+.^_`|~-]+/g, '-').replace(/^-+|-+$/g, '') || 'Platform';
  return `${token}-Webhooks/1.0`;
}

/**
 * Every header of one attempt. Two signatures travel side by side:
 * `X-SERVICE-Signature`, lowercase hex HMAC-SHA256 of the body keyed with
 * the whole `whsec_…` string as UTF-8 (the contract's own scheme), and the
 * Standard Webhooks `webhook-signature`, `v1,` + base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}` keyed with the bytes the `whsec_` suffix decodes
 * to, so the standard's libraries verify too and receivers get replay
 * protection from the timestamp. During a rotation's overlap each carries
 * the old secret's signature too: `X-SERVICE-Signature-Previous` and a
 * second `v1,` entry, new first.
 */
export function signedHeaders(input: {
  event: PartnerEvent;
  body: string;
  secret: string;
  /** During a rotation's overlap: the old secret, which signs beside the new one (§9). */
  previousSecret?: string | undefined;
  attempt: number;
  timestampSeconds: number;
  userAgent: string;
}): Record<string, string> {
  const { event, body, secret, previousSecret, attempt, timestampSeconds } = input;
  const signed = `${event.id}.${timestampSeconds}.${body}`;
  const standardSignatures = [secret, ...(previousSecret ? [previousSecret] : [])].map((key) => `v1,${standardSignature(key, signed)}`);
  return {
    'Content-Type': 'application/json',
    'User-Agent': input.userAgent,
    'X-SERVICE-Signature': serviceSignature(secret, body),
    ...(previousSecret ? { 'X-SERVICE-Signature-Previous': serviceSignature(previousSecret, body) } : {}),
    'X-SERVICE-Event-Id': event.id,
    'X-SERVICE-Event-Type': event.type,
    'X-SERVICE-Delivery-Attempt': String(attempt),
    'webhook-id': event.id,
    'webhook-timestamp': String(timestampSeconds),
    // Standard Webhooks: several signatures, space-separated; a verifier accepts any one it can check.
    'webhook-signature': standardSignatures.join(' '),
  };
}

function serviceSignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');
}

function standardSignature(secret: string, signed: string): string {
  return createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(signed, 'utf8').digest('base64');
}
