// Protects production's one role per service at start (#24): each of catalog, mailer, orders, provisioning and webhooks, migrated by its Job (MIGRATE=only, as the owner, granting SERVICE_DATABASE_URL's role), then starts as that role alone (MIGRATE=off) and answers ready: its start-up steps (catalog's seeding, webhooks' re-seal, consumers, relays) need no right the grant does not give.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataKey } from '@esim/crypto';
import { startService } from '@esim/service';
import { createLogger } from '@esim/telemetry';
import { createTestInfra, postgresUrl, type TestInfra } from '@esim/testing';
import { catalogService } from '../services/catalog/src/app.js';
import { mailerService } from '../services/mailer/src/app.js';
import { ordersService } from '../services/orders/src/app.js';
import { provisioningService } from '../services/provisioning/src/app.js';
import { webhooksService } from '../services/webhooks/src/app.js';

const tag = randomBytes(4).toString('hex');
const superuser = new pg.Client({ connectionString: `${postgresUrl}/postgres` });
const createdRoles: string[] = [];
const infras: TestInfra[] = [];

beforeAll(() => superuser.connect());
afterAll(async () => {
  for (const infra of infras) await infra.cleanup();
  for (const role of createdRoles) await superuser.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await superuser.end();
});

const dataKey = generateDataKey();
const services = [
  { definition: catalogService, extra: {} },
  { definition: mailerService, extra: { DATA_ENCRYPTION_KEY: dataKey } },
  { definition: ordersService, extra: {} },
  { definition: provisioningService, extra: {} },
  { definition: webhooksService, extra: { DATA_ENCRYPTION_KEY: dataKey } },
] as const;

describe('each service starting as its own role', () => {
  it.each(services.map((s) => [s.definition.name, s] as const))('when %s starts as the role its Job granted, then it answers ready', async (_name, { definition, extra }) => {
    const infra = await createTestInfra(`roles${definition.name}`);
    infras.push(infra);
    const role = `esim_roles_${definition.name}_${tag}`;
    createdRoles.push(role);
    const url = new URL(infra.databaseUrl);
    url.username = role;
    url.password = randomBytes(12).toString('hex');
    const start = (env: Record<string, string>) =>
      startService(definition as Parameters<typeof startService>[0], { env: infra.env({ ...extra, ...env }), logger: createLogger(definition.name, 'silent') });
    const job = await start({ MIGRATE: 'only', SERVICE_DATABASE_URL: url.toString() });
    expect(job.mode).toBe('migrated');
    const running = await start({ MIGRATE: 'off', DATABASE_URL: url.toString() });
    infra.defer(() => running.close());
    expect(running.mode).toBe('serving');
    const ready = await fetch(`http://127.0.0.1:${running.ports.health}/readyz`);
    expect(ready.status).toBe(200);
    // Whoever serves here is the role, not the owner.
    const sessions = await superuser.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1', [role]);
    expect(sessions.rows[0].n).toBeGreaterThan(0);
    // The catalog seeds its plans at start: written by the role.
    if (definition.name === 'catalog') expect((await infra.query<{ n: number }>('SELECT count(*)::int AS n FROM catalog.plans'))[0]!.n).toBeGreaterThan(0);
  });
});
