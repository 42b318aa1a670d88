// Protects the orders schema's retention (§11, docs/retention.md): applied supplier notifications go after 30 days and finished reconciliation runs (with their findings) after 400, the latest ten kept; unapplied notifications, runs under way and recent rows stay.
import { fileURLToPath } from 'node:url';
import { migrate } from '@esim/postgres';
import { runRetention } from '@esim/service';
import { createTestInfra, type TestInfra } from '@esim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersRetention } from '../src/store/retentionStore.js';

let infra: TestInfra;

beforeAll(async () => {
  infra = await createTestInfra('ordersretention');
  await migrate({ connectionString: infra.databaseUrl, schema: 'orders', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
});
afterAll(() => infra?.cleanup());

const ids = async (sql: string) => (await infra.query<{ id: string }>(sql)).map((row) => row.id);

describe('supplier notifications retention', () => {
  it('when applied notifications are older than 30 days, then the job deletes them in batches; unapplied and recent ones stay', async () => {
    const notification = (id: string, ageDays: number, applied: boolean) =>
      infra.query(
        `INSERT INTO orders.supplier_notifications (id, type, iccid, occurred_at, received_at, applied_at)
         VALUES ($1, 'esim.installed', '8900000000000000001', now() - $2 * interval '1 day', now() - $2 * interval '1 day',
                 CASE WHEN $3 THEN now() - $2 * interval '1 day' END)`,
        [id, ageDays, applied],
      );
    for (let i = 0; i < 5; i++) await notification(`old-applied-${i}`, 31 + i, true);
    await notification('old-waiting', 60, false);
    await notification('recent-applied', 29, true);

    expect(await runRetention(infra.pool, ordersRetention, { batch: 2 })).toMatchObject({ 'orders.supplier_notifications': 5 });
    expect(await ids('SELECT id FROM orders.supplier_notifications ORDER BY id')).toEqual(['old-waiting', 'recent-applied']);
  });
});

describe('reconciliation runs retention', () => {
  it('when finished runs are older than 400 days, then they go with their findings, except the latest ten and a run under way', async () => {
    const run = (id: string, ageDays: number, finished: boolean) =>
      infra.query(
        `INSERT INTO orders.reconciliation_runs (id, trigger, started_at, finished_at)
         VALUES ($1, 'daily', now() - $2 * interval '1 day', CASE WHEN $3 THEN now() - $2 * interval '1 day' END)`,
        [id, ageDays, finished],
      );
    // Twelve old finished runs: the two oldest go, the ten newest of them are the latest ten and stay.
    for (let i = 0; i < 12; i++) await run(`rcn_old_${String(i).padStart(2, '0')}`, 500 - i, true);
    await run('rcn_stuck', 600, false);
    await infra.query(`INSERT INTO orders.reconciliation_findings (run_id, seq, kind, detail, action) VALUES ('rcn_old_00', 1, 'held_without_order', 'x', 'flagged')`);

    expect(await runRetention(infra.pool, ordersRetention, { batch: 5 })).toMatchObject({ 'orders.reconciliation_runs': 2 });
    expect(await ids(`SELECT id FROM orders.reconciliation_runs WHERE id IN ('rcn_old_00', 'rcn_old_01', 'rcn_old_02', 'rcn_stuck') ORDER BY id`)).toEqual(['rcn_old_02', 'rcn_stuck']);
    expect(await infra.query(`SELECT 1 FROM orders.reconciliation_findings WHERE run_id = 'rcn_old_00'`)).toEqual([]);

    // Newer runs arrive: the old ones are no longer among the latest ten and go too.
    for (let i = 0; i < 10; i++) await run(`rcn_new_${i}`, i, true);
    await runRetention(infra.pool, ordersRetention, { batch: 5 });
    expect(await ids(`SELECT id FROM orders.reconciliation_runs WHERE id LIKE 'rcn_old%' OR id = 'rcn_stuck'`)).toEqual(['rcn_stuck']);
    expect(await ids(`SELECT id FROM orders.reconciliation_runs WHERE id LIKE 'rcn_new%'`)).toHaveLength(10);
  });
});
