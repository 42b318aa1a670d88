/**
 * Postgres's own counters for one database (pg_stat_database and
 * pg_stat_user_tables): transactions, rows read and written, sequential
 * scans by table. They count work, not time, so they compare between runs
 * on a machine shared with other workloads (pg_stat_statements needs
 * shared_preload_libraries, which a shared server may not have).
 */
import type pg from 'pg';

export interface DbCounters {
  xacts: number;
  /** tup_returned + tup_fetched: rows sequential scans returned plus rows index scans fetched. */
  rowsRead: number;
  rowsWritten: number;
  seqScans: number;
  seqTupRead: number;
  seqByTable: Record<string, { scans: number; rows: number }>;
  idxByTable: Record<string, { scans: number; rows: number }>;
}

export async function dbCounters(pool: pg.Pool, database: string): Promise<DbCounters> {
  // Backends flush their counters at most once a second: give the last ones time to land.
  await new Promise((r) => setTimeout(r, 1_500));
  await pool.query('SELECT pg_stat_clear_snapshot()');
  const db = await pool.query<{ xacts: number; read: number; written: number }>(
    `SELECT (xact_commit + xact_rollback)::float8 AS xacts, (tup_returned + tup_fetched)::float8 AS read,
            (tup_inserted + tup_updated + tup_deleted)::float8 AS written FROM pg_stat_database WHERE datname = $1`,
    [database],
  );
  const tables = await pool.query<{ name: string; scans: number; rows: number; iscans: number; irows: number }>(
    `SELECT schemaname || '.' || relname AS name, seq_scan::float8 AS scans, seq_tup_read::float8 AS rows,
            coalesce(idx_scan, 0)::float8 AS iscans, coalesce(idx_tup_fetch, 0)::float8 AS irows FROM pg_stat_user_tables`,
  );
  const seqByTable = Object.fromEntries(tables.rows.map((t) => [t.name, { scans: t.scans, rows: t.rows }]));
  const idxByTable = Object.fromEntries(tables.rows.map((t) => [t.name, { scans: t.iscans, rows: t.irows }]));
  return {
    xacts: db.rows[0]!.xacts,
    rowsRead: db.rows[0]!.read,
    rowsWritten: db.rows[0]!.written,
    seqScans: tables.rows.reduce((a, t) => a + t.scans, 0),
    seqTupRead: tables.rows.reduce((a, t) => a + t.rows, 0),
    seqByTable,
    idxByTable,
  };
}

export function diffCounters(after: DbCounters, before: DbCounters): DbCounters {
  const byTable = (key: 'seqByTable' | 'idxByTable') => {
    const out: DbCounters['seqByTable'] = {};
    for (const [name, t] of Object.entries(after[key])) {
      const b = before[key][name] ?? { scans: 0, rows: 0 };
      out[name] = { scans: t.scans - b.scans, rows: t.rows - b.rows };
    }
    return out;
  };
  return {
    xacts: after.xacts - before.xacts,
    rowsRead: after.rowsRead - before.rowsRead,
    rowsWritten: after.rowsWritten - before.rowsWritten,
    seqScans: after.seqScans - before.seqScans,
    seqTupRead: after.seqTupRead - before.seqTupRead,
    seqByTable: byTable('seqByTable'),
    idxByTable: byTable('idxByTable'),
  };
}
