import { createPool } from '@esim/postgres';

/** The local Postgres every test talks to (user postgres, trust). */
export const postgresUrl = 'postgres://postgres@127.0.0.1:5432';

/** Drops a test database even while a forgotten connection still holds it. */
export async function dropDatabase(database: string): Promise<void> {
  const admin = createPool(`${postgresUrl}/postgres`, { applicationName: 'test-cleanup', max: 1 });
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
