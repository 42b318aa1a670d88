// Protects the platform from SSRF through partners' webhook URLs (§9): with insecure URLs disallowed, a URL that is not https or resolves to any private address is refused at delivery time, with a clear error and without a connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paid } from './support/fixtures.js';
import { createTestEnv, eventually, type TestEnv } from './support/testEnv.js';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
  await env.start({ WEBHOOK_ALLOW_INSECURE_URLS: 'false', WEBHOOK_TIMEOUT_MS: '2000' });
});
afterAll(() => env?.cleanup());

/** Publishes an event to a partner with this URL and waits until its first attempt is recorded. */
async function deliverTo(url: string) {
  const partner = env.addPartner({ url });
  const eventId = await env.publish(paid(partner.id));
  expect(await eventually(async () => ((await env.deliveryOf(eventId))?.last_error ?? null) !== null, 10_000)).toBe(true);
  return (await env.deliveryOf(eventId))!;
}

describe('SSRF guard with insecure URLs disallowed', () => {
  const port = () => env.receiver.port;
  const cases: Array<[string, () => string, RegExp]> = [
    ['loopback 127.0.0.1', () => `https://127.0.0.1:${port()}/hook`, /^webhook URL resolves to a private address \(127\.0\.0\.1, loopback\)$/],
    ['10.x', () => 'https://10.1.2.3/hook', /^webhook URL resolves to a private address \(10\.1\.2\.3, RFC 1918 private\)$/],
    ['172.16.x', () => 'https://172.16.5.4/hook', /^webhook URL resolves to a private address \(172\.16\.5\.4, RFC 1918 private\)$/],
    ['192.168.x', () => 'https://192.168.1.20/hook', /^webhook URL resolves to a private address \(192\.168\.1\.20, RFC 1918 private\)$/],
    ['the cloud metadata address', () => 'https://169.254.169.254/latest/meta-data/', /^webhook URL resolves to a private address \(169\.254\.169\.254, link-local\)$/],
    ['[::1]', () => `https://[::1]:${port()}/hook`, /^webhook URL resolves to a private address \(::1, loopback\)$/],
    ['[fd00::1]', () => 'https://[fd00::1]/hook', /^webhook URL resolves to a private address \(fd00::1, unique-local\)$/],
    ['an IPv4-mapped loopback', () => `https://[::ffff:127.0.0.1]:${port()}/hook`, /^webhook URL resolves to a private address \(::ffff:7f00:1, IPv4-mapped loopback\)$/],
    ['localhost (a name resolving to loopback)', () => `https://localhost:${port()}/hook`, /^webhook URL resolves to a private address \((127\.0\.0\.1|::1), loopback\)$/],
    ['plain http', () => `http://127.0.0.1:${port()}/hook`, /^webhook URL must use https$/],
  ];

  it.each(cases)('when the URL points at %s, then the delivery is failed with a clear error and the receiver sees no connection', async (_, url, error) => {
    const connectionsBefore = env.receiver.connections();
    const delivery = await deliverTo(url());
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null, next_attempt_at: null });
    expect(delivery.last_error).toMatch(error);
    expect(env.receiver.connections()).toBe(connectionsBefore);
  });

  it('when the host name does not resolve, then the attempt fails with a DNS error and is retried, not refused', async () => {
    const delivery = await deliverTo('https://no-such-host.invalid/hook');
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    expect(delivery.last_error).toMatch(/^DNS lookup of no-such-host\.invalid failed \((ENOTFOUND|EAI_AGAIN)\)$/);
  });
});
