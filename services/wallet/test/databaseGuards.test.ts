// Protects the ledger at the database itself: writes that bypass the service (a bug, a hand-run SQL fix) cannot double-debit, double-refund, overdraw, break the chain or rewrite history, and the CHECK lists match the vocabulary.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { withTransaction, type PoolClient } from '@esim/postgres';
import { ledgerEntryTypes, reservationStates } from '@esim/vocabulary';
import { ledgerViolations } from './support/invariants.js';
import { createTestEnv, fundedPartner, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;

beforeAll(async () => {
  env = await createTestEnv();
  ({ client } = await env.start());
});
afterEach(async () => expect(await ledgerViolations(env.pool)).toEqual([]));
afterAll(() => env?.cleanup());

interface Tail {
  id: string;
  balance: number;
}

async function tailOf(db: PoolClient, partnerId: string): Promise<Tail> {
  const { rows } = await db.query<{ last_entry_id: string; balance: number }>('SELECT last_entry_id, balance FROM wallet.wallets WHERE partner_id = $1 FOR UPDATE', [partnerId]);
  return { id: rows[0]!.last_entry_id, balance: rows[0]!.balance };
}

/** Appends an entry by hand the way the service does (chained after the tail, wallet moved), so only the rule under test can object. */
async function appendBySql(
  db: PoolClient,
  partnerId: string,
  entry: { type: string; amount: number; orderId?: string; balanceBefore?: number; prevEntryId?: string | null },
): Promise<string> {
  const tail = await tailOf(db, partnerId);
  const before = entry.balanceBefore ?? tail.balance;
  const id = newId('led');
  await db.query(
    `INSERT INTO wallet.ledger_entries (id, partner_id, prev_entry_id, type, amount, balance_before, balance_after, order_id, reference)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, partnerId, entry.prevEntryId === undefined ? tail.id : entry.prevEntryId, entry.type, entry.amount, before, before + entry.amount, entry.orderId ?? null, entry.type === 'topup' ? id : null],
  );
  await db.query('UPDATE wallet.wallets SET last_entry_id = $2, balance = $3 WHERE partner_id = $1', [partnerId, id, before + entry.amount]);
  return id;
}

/** Runs `work` in a transaction and returns the Postgres error it ends with (at the statement or at commit). */
async function refusal(work: (db: PoolClient) => Promise<unknown>): Promise<{ code?: string; constraint?: string; message: string }> {
  const outcome = await withTransaction(env.pool, work).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome, 'the database accepted the write').toBeInstanceOf(Error);
  return outcome as { code?: string; constraint?: string; message: string };
}

async function reserved(balance: number, price: number): Promise<{ partnerId: string; orderId: string }> {
  const partnerId = await fundedPartner(client, balance);
  const orderId = newId('ord');
  await client.reserve({ orderId, partnerId, amount: BigInt(price), description: 'guard' });
  return { partnerId, orderId };
}

describe('the ledger tables refuse', () => {
  it('when a second order_debit for one order is inserted, then it is a unique violation', async () => {
    const { partnerId, orderId } = await reserved(1_000, 100);
    const error = await refusal((db) => appendBySql(db, partnerId, { type: 'order_debit', amount: -100, orderId }));
    expect(error).toMatchObject({ code: '23505', constraint: 'ledger_entries_one_debit_per_order' });
  });

  it('when a second refund for one order is inserted, then it is a unique violation (the first, written correctly, is accepted)', async () => {
    const { partnerId, orderId } = await reserved(1_000, 100);
    await withTransaction(env.pool, async (db) => {
      const refundId = await appendBySql(db, partnerId, { type: 'refund', amount: 100, orderId });
      await db.query(`UPDATE wallet.reservations SET state = 'released', refund_entry_id = $2 WHERE order_id = $1`, [orderId, refundId]);
    });
    const error = await refusal((db) => appendBySql(db, partnerId, { type: 'refund', amount: 100, orderId }));
    expect(error).toMatchObject({ code: '23505', constraint: 'ledger_entries_one_refund_per_order' });
  });

  it('when an entry would take the balance below 0, then it is a check violation', async () => {
    const partnerId = await fundedPartner(client, 500);
    const error = await refusal((db) => appendBySql(db, partnerId, { type: 'adjustment', amount: -501 }));
    expect(error).toMatchObject({ code: '23514', constraint: 'ledger_entries_arithmetic' });
  });

  it('when the wallet balance is set below 0 or away from its last entry, then it is refused', async () => {
    const partnerId = await fundedPartner(client, 500);
    expect(await refusal((db) => db.query('UPDATE wallet.wallets SET balance = -1 WHERE partner_id = $1', [partnerId]))).toMatchObject({ code: '23514' });
    expect(await refusal((db) => db.query('UPDATE wallet.wallets SET balance = 600 WHERE partner_id = $1', [partnerId]))).toMatchObject({
      code: '23503',
      constraint: 'wallets_balance_is_last_entry',
    });
  });

  it('when an entry does not start from the previous balance_after, then the chain key refuses it', async () => {
    const partnerId = await fundedPartner(client, 500);
    const error = await refusal((db) => appendBySql(db, partnerId, { type: 'adjustment', amount: 100, balanceBefore: 400 }));
    expect(error).toMatchObject({ code: '23503', constraint: 'ledger_entries_chain' });
  });

  it('when an entry follows another partner\'s entry, then the chain key refuses it', async () => {
    const other = await fundedPartner(client, 500);
    const partnerId = await fundedPartner(client, 500);
    const [tail] = await env.query<{ last_entry_id: string }>('SELECT last_entry_id FROM wallet.wallets WHERE partner_id = $1', [other]);
    const error = await refusal((db) => appendBySql(db, partnerId, { type: 'adjustment', amount: 1, prevEntryId: tail!.last_entry_id, balanceBefore: 500 }));
    expect(error).toMatchObject({ code: '23503', constraint: 'ledger_entries_chain' });
  });

  it('when a wallet points at another partner\'s entry, then the head key refuses it at commit', async () => {
    const other = await fundedPartner(client, 700);
    const partnerId = await fundedPartner(client, 500);
    const [tail] = await env.query<{ last_entry_id: string }>('SELECT last_entry_id FROM wallet.wallets WHERE partner_id = $1', [other]);
    const error = await refusal((db) => db.query('UPDATE wallet.wallets SET last_entry_id = $2, balance = 700 WHERE partner_id = $1', [partnerId, tail!.last_entry_id]));
    expect(error).toMatchObject({ code: '23503', constraint: 'wallets_balance_is_last_entry' });
  });

  it('when an entry forks the chain or starts a second one, then it is a unique violation', async () => {
    const partnerId = await fundedPartner(client, 500);
    await client.adjust({ partnerId, amount: 10n, reason: 'second entry' });
    const [first] = await env.query<{ id: string }>(`SELECT id FROM wallet.ledger_entries WHERE partner_id = $1 AND prev_entry_id IS NULL`, [partnerId]);
    const fork = await refusal((db) => appendBySql(db, partnerId, { type: 'adjustment', amount: 1, prevEntryId: first!.id, balanceBefore: 500 }));
    expect(fork).toMatchObject({ code: '23505', constraint: 'ledger_entries_one_successor' });
    const restart = await refusal((db) => appendBySql(db, partnerId, { type: 'adjustment', amount: 1, prevEntryId: null, balanceBefore: 0 }));
    expect(restart).toMatchObject({ code: '23505', constraint: 'ledger_entries_one_first' });
  });

  it('when an entry is appended without moving the wallet, then the commit is refused', async () => {
    const partnerId = await fundedPartner(client, 500);
    const error = await refusal(async (db) => {
      const tail = await tailOf(db, partnerId);
      await db.query(
        `INSERT INTO wallet.ledger_entries (id, partner_id, prev_entry_id, type, amount, balance_before, balance_after) VALUES ($1, $2, $3, 'adjustment', 5, $4, $5)`,
        [newId('led'), partnerId, tail.id, tail.balance, tail.balance + 5],
      );
    });
    expect(error).toMatchObject({ code: '23000', message: expect.stringContaining('does not point at its newest ledger entry') });
  });

  it('when an amount has the wrong sign for its type, then it is a check violation', async () => {
    const partnerId = await fundedPartner(client, 500);
    for (const [type, amount] of [['topup', -1], ['order_debit', 1], ['refund', -1], ['adjustment', 0]] as const) {
      const error = await refusal((db) => appendBySql(db, partnerId, { type, amount, orderId: type === 'order_debit' || type === 'refund' ? newId('ord') : undefined }));
      expect(error, type).toMatchObject({ code: '23514', constraint: 'ledger_entries_amount_sign' });
    }
  });

  it('when a ledger row is updated, deleted or truncated, then it is refused', async () => {
    const partnerId = await fundedPartner(client, 500);
    const immutable = { code: '23000', message: expect.stringContaining('ledger entries are immutable') };
    expect(await refusal((db) => db.query('UPDATE wallet.ledger_entries SET amount = 5000 WHERE partner_id = $1', [partnerId]))).toMatchObject(immutable);
    expect(await refusal((db) => db.query('DELETE FROM wallet.ledger_entries WHERE partner_id = $1', [partnerId]))).toMatchObject(immutable);
    expect(await refusal((db) => db.query('TRUNCATE wallet.ledger_entries CASCADE'))).toMatchObject(immutable);
    expect((await client.getWallet({ partnerId })).balance).toBe(500n);
  });
});

describe('the invariants checker', () => {
  it('when the chain and the balance are broken behind the constraints\' back, then it reports both', async () => {
    const partnerId = await fundedPartner(client, 500);
    const db = await env.pool.connect();
    try {
      await db.query('BEGIN');
      // Superuser only: keys and triggers off (but the numbering), never the CHECKs; rolled back below.
      await db.query('ALTER TABLE wallet.ledger_entries DISABLE TRIGGER ALL');
      await db.query('ALTER TABLE wallet.ledger_entries ENABLE TRIGGER ledger_entries_number');
      await db.query('ALTER TABLE wallet.wallets DISABLE TRIGGER ALL');
      await appendBySql(db, partnerId, { type: 'adjustment', amount: 100, balanceBefore: 900 });
      await db.query('UPDATE wallet.wallets SET balance = 7 WHERE partner_id = $1', [partnerId]);
      const found = await ledgerViolations(db);
      expect(found.some((v) => v.startsWith('broken chain'))).toBe(true);
      expect(found.some((v) => v.startsWith('balance is not the sum of the ledger'))).toBe(true);
    } finally {
      await db.query('ROLLBACK');
      db.release();
    }
  });
});

describe('CHECK constraints and the vocabulary', () => {
  async function checkedValues(constraint: string): Promise<string[]> {
    const [row] = await env.query<{ def: string }>(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = $1 AND connamespace = 'wallet'::regnamespace`, [constraint]);
    return [...(row?.def ?? '').matchAll(/'([^']+)'::text/g)].map((match) => match[1]!);
  }

  it('when the migrations ran, then ledger entry types and reservation states list exactly the @esim/vocabulary values', async () => {
    expect(await checkedValues('ledger_entries_type_check')).toEqual([...ledgerEntryTypes]);
    expect(await checkedValues('reservations_state_check')).toEqual([...reservationStates]);
  });
});
