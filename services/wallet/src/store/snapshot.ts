import type { Pool, PoolClient } from '@esim/postgres';

/**
 * Runs several reads against one snapshot, so a balance and the entries
 * listed with it (or a page and its total) agree even while money moves.
 */
export async function withSnapshot<T>(pool: Pool, read: (db: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await read(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
