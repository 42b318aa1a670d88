// Protects issue #29's "no query walks history": with a history of captured reservations, the reconciliation's "held for more than an hour" reads only held ones (the partial index reservations_held).
import { fileURLToPath } from 'node:url';
import { migrate, type Queryable } from '@esim/postgres';
import { createTestInfra, type TestInfra } from '@esim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldReservationsOlderThan } from '../src/store/reservationStore.js';

let infra: TestInfra;

beforeAll(async () => {
  infra = await createTestInfra('walletlive');
  await migrate({ connectionString: infra.databaseUrl, schema: 'wallet', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
  // Captured reservations, as years of orders leave them (written as a restore would: the chain's triggers and keys off).
  const client = await infra.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(
      `INSERT INTO wallet.reservations (order_id, partner_id, amount, state, debit_entry_id, created_at)
       SELECT 'ord_hist' || i, 'ptn_hist', 100, 'captured', 'led_' || lpad(i::text, 26, '0'), now() - interval '1 day' FROM generate_series(1, 20000) AS i`,
    );
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  await infra.query('ANALYZE wallet.reservations');
});
afterAll(() => infra?.cleanup());

describe('reconciliation on a history of captured reservations', () => {
  it('when it asks for reservations held longer than an hour, then it reads the partial index of held ones and no captured reservation', async () => {
    let sent: { text: string; params: unknown[] } | undefined;
    const recorder = { query: async (text: string, params: unknown[] = []) => ((sent = { text, params }), { rows: [], rowCount: 0 }) } as unknown as Queryable;
    await heldReservationsOlderThan(recorder, 3_600_000, 100);
    const { rows } = await infra.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${sent!.text}`, sent!.params);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).toContain('reservations_held');
    expect(plan).not.toContain('Seq Scan');
    expect(plan).not.toContain('Rows Removed by Filter');
  });
});
