// Protects the re-sealing of stored webhook secrets (#24): a secret sealed without its record (v1), current or still signing during a rotation's overlap, is re-sealed bound to its partner (v2) and opens for no other; a second run changes nothing; a value this key cannot open is left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataKey, open, parseDataKey, seal, webhookSecretRecord } from '@esim/crypto';
import { createPool, type Pool } from '@esim/postgres';
import { HashingPool } from '../src/domain/hashingPool.js';
import { resealWebhookSecrets } from '../src/domain/resealSecrets.js';
import { createTestEnv, type PartnersClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: PartnersClient;
let pool: Pool;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
  pool = createPool(env.databaseUrl, { max: 1, applicationName: 'reseal-test' });
});
afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

const deps = () => ({ pool, dataKey: env.dataKey, passwordCost: 1024, hashing: new HashingPool(1, 0) });
const row = async (id: string) =>
  (await env.query<{ current: string; previous: string | null }>('SELECT webhook_secret_sealed AS current, webhook_secret_previous_sealed AS previous FROM partners.partners WHERE id = $1', [id]))[0]!;

describe('re-sealing webhook secrets at start', () => {
  it('when both the current and the previous (overlap) secret are v1, then both become v2 bound to the partner, once', async () => {
    const partner = await client.register({ name: 'R', email: `reseal-${Date.now()}@example.com`, company: 'R Co', password: 'correct horse battery' });
    await env.query(
      `UPDATE partners.partners SET webhook_secret_sealed = $2, webhook_secret_previous_sealed = $3, webhook_secret_previous_until = now() + interval '1 hour' WHERE id = $1`,
      [partner.id, seal(env.dataKey, 'whsec_current'), seal(env.dataKey, 'whsec_previous')],
    );
    expect(await resealWebhookSecrets(deps())).toBeGreaterThanOrEqual(2);
    const { current, previous } = await row(partner.id);
    expect([current.slice(0, 3), previous!.slice(0, 3)]).toEqual(['v2.', 'v2.']);
    expect(open(env.dataKey, current, webhookSecretRecord(partner.id))).toBe('whsec_current');
    expect(open(env.dataKey, previous!, webhookSecretRecord(partner.id))).toBe('whsec_previous');
    expect(() => open(env.dataKey, previous!, webhookSecretRecord('ptn_other'))).toThrow();
    expect(await resealWebhookSecrets(deps())).toBe(0);
  });

  it('when a v1 value was sealed under another key, then it is left as it is', async () => {
    const partner = await client.register({ name: 'K', email: `reseal-key-${Date.now()}@example.com`, company: 'K Co', password: 'correct horse battery' });
    const foreign = seal(parseDataKey(generateDataKey()), 'whsec_foreign');
    await env.query('UPDATE partners.partners SET webhook_secret_sealed = $2 WHERE id = $1', [partner.id, foreign]);
    await resealWebhookSecrets(deps());
    expect((await row(partner.id)).current).toBe(foreign);
  });
});
