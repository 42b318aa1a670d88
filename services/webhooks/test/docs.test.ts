// Protects the partner guide (docs/webhooks.md): its TypeScript samples are run as printed against requests signed by the service's own signing code, so a partner copying them verifies real webhooks.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { signedHeaders, webhookBody } from '../src/domain/signing.js';
import type { PartnerEvent } from '../src/domain/delivery.js';
import { newWebhookSecret } from './support/fakePartners.js';

const guide = fileURLToPath(new URL('../../../docs/webhooks.md', import.meta.url));
// Inside the repository, so the samples' imports (standardwebhooks) resolve as they would in a partner's project.
const sampleDir = fileURLToPath(new URL(`./.docs-samples-${randomBytes(4).toString('hex')}/`, import.meta.url));

type Samples = {
  verifyServiceSignature(rawBody: string | Buffer, signatureHeader: string, secret: string): boolean;
  verifyStandardWebhook(rawBody: string, headers: Record<string, string>, secret: string): unknown;
  createWebhookReceiver(secret: string, handle: (event: { id: string; type: string }) => void): Server;
};
let samples: Samples;

const secret = newWebhookSecret();
const event: PartnerEvent = {
  id: newId('evt'),
  partnerId: newId('ptn'),
  type: 'payment.paid',
  orderId: 'ord_1',
  payload: { orderId: 'ord_1', clientRequestId: 'req-1', amount: 750, currency: 'USD', walletBalance: 9_250 },
  createdAt: new Date(),
  traceContext: {},
};

/** A request exactly as the service signs it; header names lower-cased, as a Node receiver sees them. */
function signedSample(timestampSeconds = Math.floor(Date.now() / 1_000)) {
  const body = webhookBody(event);
  const headers = signedHeaders({ event, body, secret, attempt: 1, timestampSeconds, userAgent: 'Test-Webhooks/1.0' });
  return { body, headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])) };
}

beforeAll(async () => {
  const blocks = [...readFileSync(guide, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
  expect(blocks).toHaveLength(3);
  mkdirSync(sampleDir, { recursive: true });
  const modules = [];
  for (const [index, code] of blocks.entries()) {
    const file = `${sampleDir}sample${index}.ts`;
    writeFileSync(file, code);
    modules.push(await import(pathToFileURL(file).href));
  }
  samples = Object.assign({}, ...modules) as Samples;
});
afterAll(() => rmSync(sampleDir, { recursive: true, force: true }));

describe('the guide\'s samples', () => {
  it('when the node:crypto sample checks a signed request, then it accepts it, and rejects a changed body, another secret or a malformed header', () => {
    const { body, headers } = signedSample();
    const signature = headers['x-service-signature']!;
    expect(samples.verifyServiceSignature(body, signature, secret)).toBe(true);
    expect(samples.verifyServiceSignature(Buffer.from(body), signature, secret)).toBe(true);
    expect(samples.verifyServiceSignature(body.replace('750', '751'), signature, secret)).toBe(false);
    expect(samples.verifyServiceSignature(body, signature, newWebhookSecret())).toBe(false);
    expect(samples.verifyServiceSignature(body, 'not-hex', secret)).toBe(false);
  });

  it('when the standardwebhooks sample checks a signed request, then it returns the event, and throws for a changed body or a stale timestamp', () => {
    const { body, headers } = signedSample();
    expect(samples.verifyStandardWebhook(body, headers, secret)).toEqual(JSON.parse(body));
    expect(() => samples.verifyStandardWebhook(body.replace('750', '751'), headers, secret)).toThrow();
    const stale = signedSample(Math.floor(Date.now() / 1_000) - 600);
    expect(() => samples.verifyStandardWebhook(stale.body, stale.headers, secret)).toThrow();
  });

  it('when the receiver sample gets the same signed event twice and a forged one, then it handles the event once, answers 204 twice and 401 to the forgery', async () => {
    const handled: string[] = [];
    const server = samples.createWebhookReceiver(secret, (received) => handled.push(received.id));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const { body, headers } = signedSample();
      const post = (extra: Record<string, string> = {}) => fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body });
      expect((await post()).status).toBe(204);
      expect((await post()).status).toBe(204);
      expect((await post({ 'x-service-signature': '00'.repeat(32) })).status).toBe(401);
      expect(handled).toEqual([event.id]);
    } finally {
      server.close();
    }
  });
});
