// Protects production's one role per service end to end (#24), for the wallet (the money path: triggers, sequences, the outbox): a service migrated by its Job (MIGRATE=only, as the owner, granting SERVICE_DATABASE_URL's role) then runs as that role alone (MIGRATE=off) and does its real work: its start-up steps, its consumers' and relay's tables, its triggers and sequences. A privilege the grant forgot fails here, not in a cluster.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { walletV1 } from '@esim/proto';
import { startService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { createTestInfra, postgresUrl, type TestInfra } from '@esim/testing';
import { walletService } from '../services/wallet/src/app.js';

const tag = randomBytes(4).toString('hex');
const superuser = new pg.Client({ connectionString: `${postgresUrl}/postgres` });
const createdRoles: string[] = [];
const infras: TestInfra[] = [];

/** Runs `definition`'s migration Job against a fresh database and answers the URL of the role it granted. */
async function migratedAs(infra: TestInfra, definition: Parameters<typeof startService>[0], extra: Record<string, string> = {}): Promise<string> {
  const role = `esim_roles_${definition.name}_${tag}`;
  createdRoles.push(role);
  const url = new URL(infra.databaseUrl);
  url.username = role;
  url.password = randomBytes(12).toString('hex');
  const job = await startService(definition, { env: infra.env({ ...extra, MIGRATE: 'only', SERVICE_DATABASE_URL: url.toString() }), logger: createLogger('job', 'silent') });
  expect(job.mode).toBe('migrated');
  return url.toString();
}

beforeAll(() => superuser.connect());
afterAll(async () => {
  for (const infra of infras) await infra.cleanup();
  for (const role of createdRoles) await superuser.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await superuser.end();
});

describe('a service running as its own role', () => {
  it('when the wallet runs as its role, then top-ups, debits and adjustments work, and its role still cannot read another schema', async () => {
    const infra = await createTestInfra('roleswallet');
    infras.push(infra);
    const roleUrl = await migratedAs(infra, walletService);
    const { client } = await infra.serve(walletService, walletV1.WalletService, { MIGRATE: 'off', DATABASE_URL: roleUrl });
    const partnerId = newId('ptn');
    const audit = { operator: 'opr_00000000000000000000000001', requestId: 'req_roles', note: '' };
    await client.topUp({ partnerId, amount: 5_000n, reference: 'WIRE-ROLES', audit });
    const orderId = newId('ord');
    await client.reserve({ orderId, partnerId, amount: 1_200n, description: 'Roles 1 GB' });
    await client.adjust({ partnerId, amount: -100n, reason: 'fee', audit });
    const wallet = await client.getWallet({ partnerId });
    expect(wallet.balance).toBe(3_700n);
    // The same role, straight at Postgres: its schema yes, another no.
    const asRole = new pg.Client({ connectionString: roleUrl });
    await asRole.connect();
    try {
      expect((await asRole.query('SELECT count(*)::int AS n FROM wallet.ledger_entries WHERE partner_id = $1', [partnerId])).rows[0].n).toBe(3);
      await infra.pool.query('CREATE SCHEMA IF NOT EXISTS other; CREATE TABLE IF NOT EXISTS other.secrets (v text)');
      await expect(asRole.query('SELECT * FROM other.secrets')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await asRole.end();
    }
  });
});
