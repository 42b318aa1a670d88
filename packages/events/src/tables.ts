import { fileURLToPath } from 'node:url';
import { migrate, pendingMigrations } from '@esim/postgres';

const eventTablesDir = fileURLToPath(new URL('../migrations', import.meta.url));
const eventTablesRecord = 'pgmigrations_events';

/**
 * Creates `<schema>.outbox` and `<schema>.processed_events`, the tables the
 * outbox relay and the idempotent consumer rely on. Declared once here, so
 * every service schema gets the same shape; recorded in a migrations table
 * of their own, apart from the service's migrations.
 */
export function migrateEventTables(connectionString: string, schema: string): Promise<void> {
  return migrate({ connectionString, schema, dir: eventTablesDir, table: eventTablesRecord });
}

/** The event-table migrations `schema` still lacks (see `pendingMigrations`). */
export function pendingEventTableMigrations(connectionString: string, schema: string): Promise<string[]> {
  return pendingMigrations({ connectionString, schema, dir: eventTablesDir, table: eventTablesRecord });
}
