// Protects production's one role per service end to end (#24), for the partners service (its start-up re-seal, accounts, operators, the audit log); one service per file, as each test process serves one: a service migrated by its Job (MIGRATE=only, as the owner, granting SERVICE_DATABASE_URL's role) then runs as that role alone (MIGRATE=off) and does its real work: its start-up steps, its consumers' and relay's tables, its triggers and sequences. A privilege the grant forgot fails here, not in a cluster.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataKey } from '@esim/crypto';
import { partnersV1 } from '@esim/proto';
import { startService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { createTestInfra, postgresUrl, type TestInfra } from '@esim/testing';
import { partnersService } from '../services/partners/src/app.js';

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
  it('when the partners service runs as its role, then its start-up re-seal, registration, operators and the audit log work', async () => {
    const infra = await createTestInfra('rolespartners');
    infras.push(infra);
    const settings = { DATA_ENCRYPTION_KEY: generateDataKey(), PASSWORD_HASH_COST: '1024' };
    const roleUrl = await migratedAs(infra, partnersService, settings);
    const { client } = await infra.serve(partnersService, partnersV1.PartnersService, { ...settings, MIGRATE: 'off', DATABASE_URL: roleUrl });
    const audit = { operator: 'admin-token', requestId: 'req_roles', note: 'roles' };
    const partner = await client.register({ name: 'Roles', email: `roles-${tag}@example.com`, company: 'Roles Co', password: 'correct horse battery' });
    expect(partner.id).toMatch(/^ptn_/);
    const operator = await client.createOperator({ email: `roles-op-${tag}@example.com`, name: 'Roles Op', role: 'viewer', audit });
    await client.updateOperatorRole({ id: operator.id, role: 'support', audit });
    await client.revokeOperator({ id: operator.id, audit });
    const { entries } = await client.listAuditEntries({ page: { page: 1, limit: 10 } });
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(['operator.created']));
  });
});
