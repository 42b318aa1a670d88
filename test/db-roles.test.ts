// Protects one database role per service (#24): the migration step, run as a non-superuser owner as the production Job runs it, gives each service's role its own schema (read, write, later tables too) and nothing of another service's, no DDL, and read-only migration records.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantServiceRole, migrate } from '@esim/postgres';
import { createLogger } from '@esim/telemetry';
import { dropDatabase, postgresUrl } from '@esim/testing';
import { prepareSchema } from '../packages/service/src/boot.js';

const tag = randomBytes(4).toString('hex');
const database = `esim_roles_test_${tag}`;
const owner = `esim_roles_owner_${tag}`;
const roles = { wallet: `esim_roles_wallet_${tag}`, catalog: `esim_roles_catalog_${tag}` };
const passwords = { wallet: randomBytes(12).toString('hex'), catalog: randomBytes(12).toString('hex') };
const urlOf = (user: string, password = '') => `postgres://${user}${password ? `:${password}` : ''}@127.0.0.1:5432/${database}`;
const serviceUrl = (service: keyof typeof roles) => urlOf(roles[service], passwords[service]);
const migrationsOf = (service: string) => fileURLToPath(new URL(`../services/${service}/migrations`, import.meta.url));
const logger = createLogger('db-roles-test', 'silent');
const superuser = new pg.Client({ connectionString: `${postgresUrl}/postgres` });
const clients: pg.Client[] = [];
const dirs: string[] = [];

async function connectAs(service: keyof typeof roles): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: serviceUrl(service) });
  await client.connect();
  clients.push(client);
  return client;
}

/** The SQLSTATE a statement fails with, or 'ok'. */
async function outcome(client: pg.Client, sql: string): Promise<string> {
  return client.query(sql).then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? 'unknown',
  );
}

beforeAll(async () => {
  await superuser.connect();
  // The production owner: no superuser, may create roles, owns the database (a managed Postgres's usual shape).
  await superuser.query(`CREATE ROLE ${owner} LOGIN CREATEROLE`);
  await superuser.query(`CREATE DATABASE ${database} OWNER ${owner}`);
  // Each Job, as MIGRATE=only runs it: migrate as the owner, then grant the service's role.
  for (const service of ['wallet', 'catalog'] as const) {
    await prepareSchema({ mode: 'only', connectionString: urlOf(owner), schema: service, migrationsDir: migrationsOf(service), logger, serviceUrl: serviceUrl(service) });
  }
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.end().catch(() => undefined);
  await dropDatabase(database).catch(() => undefined);
  for (const role of [...Object.values(roles), owner]) await superuser.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await superuser.end();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a service role, as the migration Job grants it', () => {
  it('when wallet’s role uses its own schema, then it reads and writes its tables and sequences', async () => {
    const wallet = await connectAs('wallet');
    expect((await wallet.query('SELECT current_user AS who')).rows[0].who).toBe(roles.wallet);
    expect(await outcome(wallet, 'SELECT count(*) FROM wallet.wallets')).toBe('ok');
    const inserted = await wallet.query(`INSERT INTO wallet.outbox (id, subject, payload) VALUES ('evt_roles', 'x', '{}') RETURNING seq`);
    expect(inserted.rows[0].seq).toBeGreaterThan(0);
    expect(await outcome(wallet, `UPDATE wallet.outbox SET published_at = now() WHERE id = 'evt_roles'`)).toBe('ok');
    expect(await outcome(wallet, `DELETE FROM wallet.outbox WHERE id = 'evt_roles'`)).toBe('ok');
    // MIGRATE=off pods read the records of what is applied.
    expect(await outcome(wallet, 'SELECT name FROM wallet.pgmigrations')).toBe('ok');
    expect(await outcome(wallet, 'SELECT name FROM wallet.pgmigrations_events')).toBe('ok');
  });

  it('when wallet’s role touches catalog’s schema, then every read and write is refused (42501)', async () => {
    const wallet = await connectAs('wallet');
    expect(await outcome(wallet, 'SELECT count(*) FROM catalog.plans')).toBe('42501');
    expect(await outcome(wallet, `INSERT INTO catalog.outbox (id, subject, payload) VALUES ('evt_x', 'x', '{}')`)).toBe('42501');
    expect(await outcome(wallet, 'UPDATE catalog.plans SET name = name')).toBe('42501');
    expect(await outcome(wallet, 'DELETE FROM catalog.outbox')).toBe('42501');
    // And the other way round.
    const catalog = await connectAs('catalog');
    expect(await outcome(catalog, 'SELECT count(*) FROM catalog.plans')).toBe('ok');
    expect(await outcome(catalog, 'SELECT count(*) FROM wallet.wallets')).toBe('42501');
    expect(await outcome(catalog, 'SELECT count(*) FROM wallet.ledger_entries')).toBe('42501');
    expect(await outcome(catalog, `INSERT INTO wallet.outbox (id, subject, payload) VALUES ('evt_y', 'x', '{}')`)).toBe('42501');
  });

  it('when a service role tries DDL or to rewrite its migration records, then it is refused', async () => {
    const wallet = await connectAs('wallet');
    expect(await outcome(wallet, 'CREATE TABLE wallet.planted (id int)')).toBe('42501');
    expect(await outcome(wallet, 'CREATE TABLE public.planted (id int)')).toBe('42501');
    expect(await outcome(wallet, 'CREATE SCHEMA planted')).toBe('42501');
    expect(await outcome(wallet, 'ALTER TABLE wallet.wallets ADD COLUMN planted int')).toBe('42501');
    expect(await outcome(wallet, 'DROP TABLE wallet.outbox')).toBe('42501');
    expect(await outcome(wallet, 'TRUNCATE wallet.outbox')).toBe('42501');
    expect(await outcome(wallet, `DELETE FROM wallet.pgmigrations`)).toBe('42501');
    expect(await outcome(wallet, `INSERT INTO wallet.pgmigrations (name, run_on) VALUES ('x', now())`)).toBe('42501');
  });

  it('when a later migration adds a table, then the role may use it without another grant, and still not the other schema’s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esim-roles-'));
    dirs.push(dir);
    writeFileSync(join(dir, '1900000000000_later.sql'), '-- Up Migration\nCREATE TABLE later (id bigserial PRIMARY KEY, note text);\n-- Down Migration\nDROP TABLE later;\n');
    await migrate({ connectionString: urlOf(owner), schema: 'catalog', dir, table: 'pgmigrations_later' });
    const catalog = await connectAs('catalog');
    expect(await outcome(catalog, `INSERT INTO catalog.later (note) VALUES ('new')`)).toBe('ok');
    const wallet = await connectAs('wallet');
    expect(await outcome(wallet, 'SELECT * FROM catalog.later')).toBe('42501');
  });

  it('when the role is granted, then it holds no power of its own and its password is stored as a SCRAM verifier of the URL’s password', async () => {
    const { rows } = await superuser.query(
      'SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolcanlogin, rolpassword FROM pg_authid WHERE rolname = $1',
      [roles.wallet],
    );
    expect(rows[0]).toMatchObject({ rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolbypassrls: false, rolcanlogin: true });
    const [, params, keys] = (rows[0].rolpassword as string).split('$');
    const [iterations, salt] = params!.split(':');
    const [storedKey] = keys!.split(':');
    // Recomputed from the URL's password: the verifier Postgres checks a login against.
    const salted = pbkdf2Sync(passwords.wallet, Buffer.from(salt!, 'base64'), Number(iterations), 32, 'sha256');
    const clientKey = createHmac('sha256', salted).update('Client Key').digest();
    expect(createHash('sha256').update(clientKey).digest('base64')).toBe(storedKey);
  });

  it('when the grant runs again (the next rollout), then it succeeds and changes nothing of the rights', async () => {
    await expect(grantServiceRole({ ownerUrl: urlOf(owner), serviceUrl: serviceUrl('wallet'), schema: 'wallet' })).resolves.toEqual({ role: roles.wallet, granted: true });
    const wallet = await connectAs('wallet');
    expect(await outcome(wallet, 'SELECT count(*) FROM wallet.wallets')).toBe('ok');
    expect(await outcome(wallet, 'SELECT count(*) FROM catalog.plans')).toBe('42501');
  });

  it('when the URL names a role with powers, or the owner itself, then it is refused, or left alone', async () => {
    const powerful = `esim_roles_powerful_${tag}`;
    roles[`powerful` as keyof typeof roles] = powerful;
    await superuser.query(`CREATE ROLE ${powerful} LOGIN CREATEDB`);
    await expect(grantServiceRole({ ownerUrl: urlOf(owner), serviceUrl: urlOf(powerful, 'x'), schema: 'wallet' })).rejects.toThrow(/must not/);
    await expect(grantServiceRole({ ownerUrl: urlOf(owner), serviceUrl: urlOf(owner, 'x'), schema: 'wallet' })).resolves.toEqual({ role: owner, granted: false, reason: 'same-role-as-owner' });
  });

  it('when the owner may not create roles, then the grant fails with a message saying what to do', async () => {
    const weak = `esim_roles_weak_${tag}`;
    roles['weak' as keyof typeof roles] = weak;
    await superuser.query(`CREATE ROLE ${weak} LOGIN`);
    await expect(grantServiceRole({ ownerUrl: urlOf(weak), serviceUrl: urlOf(`esim_roles_never_${tag}`, 'x'), schema: 'wallet' })).rejects.toThrow(/CREATEROLE/);
    expect((await superuser.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [`esim_roles_never_${tag}`])).rowCount).toBe(0);
  });
});
