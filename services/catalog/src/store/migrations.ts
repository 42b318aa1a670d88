import { fileURLToPath } from 'node:url';
import { migrate } from '@esim/postgres';

const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Applies the catalog schema's migrations; concurrent replicas wait on the schema's advisory lock. */
export function migrateCatalog(connectionString: string, schema: string): Promise<void> {
  return migrate({ connectionString, schema, dir: migrationsDir });
}
