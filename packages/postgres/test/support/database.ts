import { randomBytes } from 'node:crypto';
import { ensureDatabase } from '@esim/postgres';
import { dropDatabase, postgresUrl } from '@esim/testing';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh database for one test file (`esim_<label>_test_<random>`), dropped by `drop`; `create: false` leaves creating it to the test. */
export async function createTestDatabase(label: string, options: { create?: boolean } = {}): Promise<TestDatabase> {
  const name = `esim_${label}_test_${randomBytes(5).toString('hex')}`;
  const url = `${postgresUrl}/${name}`;
  if (options.create !== false) await ensureDatabase(url);
  return { name, url, drop: () => dropDatabase(name) };
}
