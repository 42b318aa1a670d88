import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The role a service connects with, given its rights on its own schema and
 * nothing else (#24): run by the migration step as the schema's owner, after
 * the schema's migrations, with the service's own connection URL (its user
 * and password). What the role may do:
 * - connect to the database, use its schema (never CREATE in it: the role
 *   runs no DDL), and read and write every table of that schema, now and
 *   later (default privileges of the owner), use its sequences;
 * - read, not write, the schema's migration records (a pod started with
 *   MIGRATE=off only asks which migrations are applied).
 * It gets no right on any other schema, and (when the migration role owns
 * the database) PUBLIC loses CREATE on `public` (Postgres 15's default, made
 * explicit for older servers), so a service cannot read, write or plant
 * anything in another service's tables. An existing role with powers of its
 * own (superuser, CREATEROLE…) is refused rather than narrowed.
 *
 * The password is sent as a SCRAM-SHA-256 verifier computed here: the
 * plaintext never reaches the server, so statement logs cannot show it.
 * Idempotent: re-running sets the same rights (and a fresh verifier of the
 * same password).
 */
export interface ServiceRoleGrant {
  /** The owner's (migrator's) connection: a role that owns the schema and may create roles (CREATEROLE). */
  ownerUrl: string;
  /** The service's own connection URL: its user is the role, its password the role's password. */
  serviceUrl: string;
  schema: string;
  /** Tables of the schema the role may only read: node-pg-migrate's records. */
  readOnlyTables?: readonly string[];
}

export type ServiceRoleOutcome = { role: string; granted: true } | { role: string; granted: false; reason: 'same-role-as-owner' };

/** Any fixed number: the one lock every grant of this platform takes. */
const grantLockValue = 0x65736d72; // 'esmr'

export const migrationRecordTables = ['pgmigrations', 'pgmigrations_events'] as const;

/** A SCRAM-SHA-256 verifier of `password` as Postgres stores it (RFC 5802/7677, 4096 iterations, Postgres's default). */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();
  const storedKey = createHash('sha256').update(hmac(salted, 'Client Key')).digest();
  const serverKey = hmac(salted, 'Server Key');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

function roleOf(serviceUrl: string): { role: string; password: string } {
  const url = new URL(serviceUrl);
  const role = decodeURIComponent(url.username);
  if (!role) throw new Error('the service database URL names no user: it must carry the role the service connects as');
  return { role, password: decodeURIComponent(url.password) };
}

export async function grantServiceRole(grant: ServiceRoleGrant): Promise<ServiceRoleOutcome> {
  const { role, password } = roleOf(grant.serviceUrl);
  const client = new pg.Client({ connectionString: grant.ownerUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const owner = (await client.query<{ user: string; database: string }>('SELECT current_user AS user, current_database() AS database')).rows[0]!;
    // One role for everything (local development, a single-user test database): nothing to narrow.
    if (owner.user === role) return { role, granted: false, reason: 'same-role-as-owner' };
    const r = pg.escapeIdentifier(role);
    const s = pg.escapeIdentifier(grant.schema);
    await client.query('BEGIN');
    // The migration Jobs run side by side, and grants on one object (the database, `public`) racing each other fail
    // with "tuple concurrently updated": one grant at a time, held to the end of this transaction.
    await client.query('SELECT pg_advisory_xact_lock($1)', [grantLockValue]);
    const found = await client.query<{ power: boolean }>(
      'SELECT rolsuper OR rolcreatedb OR rolcreaterole OR rolbypassrls OR rolreplication AS power FROM pg_roles WHERE rolname = $1',
      [role],
    );
    // A role created beforehand with powers of its own would make every grant below pointless.
    if (found.rows[0]?.power) throw new Error(`${role} is a superuser or may create roles or databases, bypass row security or replicate: a service role must not`);
    // Created without any power (the defaults: NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS).
    if (found.rowCount === 0) await client.query(`CREATE ROLE ${r} LOGIN`);
    else await client.query(`ALTER ROLE ${r} LOGIN`);
    if (password) await client.query(`ALTER ROLE ${r} PASSWORD ${client.escapeLiteral(scramVerifier(password))}`);
    const ownsDatabase = await client.query('SELECT 1 FROM pg_database WHERE datname = current_database() AND pg_has_role(datdba, \'USAGE\')');
    if (ownsDatabase.rowCount !== 0) {
      // Only the database's owner may: elsewhere PUBLIC keeps CONNECT (the default) and the owner decides about `public`.
      await client.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
      await client.query(`GRANT CONNECT ON DATABASE ${pg.escapeIdentifier(owner.database)} TO ${r}`);
    }
    await client.query(`GRANT USAGE ON SCHEMA ${s} TO ${r}`);
    await client.query(`REVOKE CREATE ON SCHEMA ${s} FROM ${r}`);
    await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${r}`);
    await client.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO ${r}`);
    // Tables and sequences later migrations create are the role's to use as soon as they exist.
    await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${r}`);
    await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT USAGE, SELECT ON SEQUENCES TO ${r}`);
    const present = await client.query<{ name: string }>(
      'SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename = ANY($2)',
      [grant.schema, [...(grant.readOnlyTables ?? migrationRecordTables)]],
    );
    for (const { name } of present.rows) await client.query(`REVOKE INSERT, UPDATE, DELETE ON ${s}.${pg.escapeIdentifier(name)} FROM ${r}`);
    await client.query('COMMIT');
    return { role, granted: true };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if ((error as { code?: string }).code === '42501') {
      throw new Error(
        `granting ${role} its schema ${grant.schema} was refused: the migration role must own the schema and may create roles (ALTER ROLE <migrator> CREATEROLE), or create ${role} beforehand`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    await client.end();
  }
}
