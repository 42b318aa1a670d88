// Protects the re-sealing of stored endpoint secrets (#24): an endpoint secret sealed without its record (v1, endpoints made before AES-GCM v2), current or previous, is re-sealed bound to its account (v2) and opens for no other; a second run changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, parseDataKey, seal, webhookSecretRecord } from '@esim/crypto';
import { createPool, type Pool } from '@esim/postgres';
import { resealEndpointSecrets } from '../src/domain/resealEndpointSecrets.js';
import { createTestEnv, type TestEnv, type TestWebhooks } from './support/testEnv.js';

let env: TestEnv;
let service: TestWebhooks;
let pool: Pool;

beforeAll(async () => {
  env = await createTestEnv();
  service = await env.start({ WEBHOOK_RETRY_SCHEDULE: '1h' });
  pool = createPool(env.databaseUrl, { max: 1, applicationName: 'reseal-endpoints-test' });
});
afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

describe('re-sealing endpoint secrets at start', () => {
  it('when an endpoint’s current and previous secrets are v1, then both become v2 bound to its account, once', async () => {
    const dataKey = parseDataKey(env.dataKeyBase64);
    const partner = env.addPartner();
    const created = await service.client.createEndpoint({ partnerId: partner.id, url: env.receiver.url(`${partner.path}/r`), description: 'r', allEventTypes: true, eventTypes: [], enabled: false });
    const id = created.endpoint!.id;
    await env.query(
      `UPDATE webhooks.endpoints SET secret_sealed = $2, previous_secret_sealed = $3, previous_secret_until = now() + interval '1 hour' WHERE id = $1`,
      [id, seal(dataKey, 'whsec_current'), seal(dataKey, 'whsec_previous')],
    );
    expect(await resealEndpointSecrets({ pool, dataKey })).toBe(2);
    const [row] = await env.query<{ current: string; previous: string }>('SELECT secret_sealed AS current, previous_secret_sealed AS previous FROM webhooks.endpoints WHERE id = $1', [id]);
    expect([row!.current.slice(0, 3), row!.previous.slice(0, 3)]).toEqual(['v2.', 'v2.']);
    expect(open(dataKey, row!.current, webhookSecretRecord(partner.id))).toBe('whsec_current');
    expect(open(dataKey, row!.previous, webhookSecretRecord(partner.id))).toBe('whsec_previous');
    expect(() => open(dataKey, row!.current, webhookSecretRecord('ptn_other'))).toThrow();
    expect(await resealEndpointSecrets({ pool, dataKey })).toBe(0);
  });
});
