// Protects the partners schema's retention (§11, docs/retention.md): account tokens go a week after they expired; the audit log is never pruned.
import { fileURLToPath } from 'node:url';
import { migrate } from '@esim/postgres';
import { runRetention } from '@esim/service';
import { createTestInfra, type TestInfra } from '@esim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnersRetention } from '../src/store/retentionStore.js';

let infra: TestInfra;

beforeAll(async () => {
  infra = await createTestInfra('partnersretention');
  await migrate({ connectionString: infra.databaseUrl, schema: 'partners', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
  await infra.query(`INSERT INTO partners.partners (id, name, email, company, password_hash) VALUES ('ptn_r', 'R', 'r@example.com', 'R Ltd', 'x')`);
});
afterAll(() => infra?.cleanup());

describe('partners retention', () => {
  it('when tokens expired more than a week ago, then the job deletes them, used or not; tokens expired lately or still valid stay, and the audit log is kept', async () => {
    const token = (hash: string, expiredDaysAgo: number, used: boolean) =>
      infra.query(
        `INSERT INTO partners.account_tokens (token_hash, partner_id, purpose, expires_at, used_at)
         VALUES ($1, 'ptn_r', 'reset_password', now() - $2 * interval '1 day', CASE WHEN $3 THEN now() - $2 * interval '1 day' END)`,
        [hash, expiredDaysAgo, used],
      );
    await token('old-unused', 8, false);
    await token('old-used', 30, true);
    await token('lately', 6, false);
    await token('valid', -1, false);
    await infra.query(`INSERT INTO partners.audit_log (id, action, target, created_at) VALUES ('aud_old', 'partner.approved', 'ptn_r', now() - interval '10 years')`);

    expect(await runRetention(infra.pool, partnersRetention, { batch: 1 })).toEqual({ 'partners.account_tokens': 2 });
    expect((await infra.query<{ token_hash: string }>('SELECT token_hash FROM partners.account_tokens ORDER BY token_hash')).map((row) => row.token_hash)).toEqual(['lately', 'valid']);
    expect(await infra.query(`SELECT id FROM partners.audit_log`)).toEqual([{ id: 'aud_old' }]);
  });
});
