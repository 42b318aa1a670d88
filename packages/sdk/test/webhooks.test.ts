// webhooks.verify against signatures made as the platform makes them (docs/webhooks.md) and by the Standard Webhooks library.
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { webhooks, WebhookVerificationError } from '../src/index.js';

const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', createdAt: '2026-11-24T09:30:00.000Z', data: { message: 'hi' } });
const now = 1_790_000_000;
const serviceSignature = (raw: string, key = secret) => createHmac('sha256', key).update(raw).digest('hex');
const standardHeaders = (raw: string, timestamp = now) => {
  const signature = new Webhook(secret).sign('evt_1', new Date(timestamp * 1000), raw);
  return { 'webhook-id': 'evt_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
};

describe('webhooks.verify', () => {
  it('when X-SERVICE-Signature matches the raw body, then the typed event is returned (Node header object or Headers)', async () => {
    const event = await webhooks.verify(body, { 'x-service-signature': serviceSignature(body) }, secret);
    expect(event).toMatchObject({ id: 'evt_1', type: 'webhook.test' });
    const again = await webhooks.verify(Buffer.from(body), new Headers({ 'X-SERVICE-Signature': serviceSignature(body) }), secret);
    expect(again.id).toBe('evt_1');
  });

  it('when the Standard Webhooks headers are valid, then they are checked and the event returned', async () => {
    const event = await webhooks.verify(body, standardHeaders(body), secret, { now });
    expect(event.type).toBe('webhook.test');
    const both = { ...standardHeaders(body), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')} ${standardHeaders(body)['webhook-signature']}` };
    await expect(webhooks.verify(body, both, secret, { now })).resolves.toMatchObject({ id: 'evt_1' });
  });

  it('when the body, the secret or the timestamp is wrong, then it throws WebhookVerificationError', async () => {
    const tampered = body.replace('hi', 'ho');
    await expect(webhooks.verify(tampered, { 'x-service-signature': serviceSignature(body) }, secret)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(webhooks.verify(body, { 'x-service-signature': serviceSignature(body, 'whsec_other') }, secret)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(webhooks.verify(body, { 'x-service-signature': 'zz' }, secret)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(webhooks.verify(tampered, standardHeaders(body), secret, { now })).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(webhooks.verify(body, standardHeaders(body, now - 301), secret, { now })).rejects.toThrow(/timestamp/);
    await expect(webhooks.verify(body, {}, secret)).rejects.toThrow(/no X-SERVICE-Signature/);
  });

  it('when the Standard headers are forced but absent, then only a valid Standard signature passes', async () => {
    await expect(webhooks.verify(body, { 'x-service-signature': serviceSignature(body) }, secret, { scheme: 'standard' })).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
