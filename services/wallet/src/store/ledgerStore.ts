import type { Queryable } from '@esim/postgres';
import type { LedgerEntryType } from '@esim/vocabulary';
import type { LedgerEntry, NewEntry, WalletHead } from '../domain/ledger.js';

/** SQL for wallet.ledger_entries: inserts and reads only (the table refuses UPDATE and DELETE). */
const columns = 'id, partner_id, type, amount, balance_before, balance_after, order_id, reference, description, created_at';

interface EntryRow {
  id: string;
  partner_id: string;
  type: LedgerEntryType;
  amount: number;
  balance_before: number;
  balance_after: number;
  order_id: string | null;
  reference: string | null;
  description: string | null;
  created_at: Date;
}

function toEntry(row: EntryRow): LedgerEntry {
  return {
    id: row.id,
    partnerId: row.partner_id,
    type: row.type,
    amount: row.amount,
    balanceBefore: row.balance_before,
    balanceAfter: row.balance_after,
    orderId: row.order_id,
    reference: row.reference,
    description: row.description,
    createdAt: row.created_at,
  };
}

/** Appends `entry` after the wallet's newest entry, starting from its balance. */
export async function insertEntry(db: Queryable, id: string, head: WalletHead, entry: NewEntry): Promise<LedgerEntry> {
  const { rows } = await db.query<EntryRow>(
    `INSERT INTO wallet.ledger_entries (id, partner_id, prev_entry_id, type, amount, balance_before, balance_after, order_id, reference, description)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     RETURNING ${columns}`,
    [
      id,
      head.partnerId,
      head.lastEntryId,
      entry.type,
      entry.amount,
      head.balance,
      head.balance + entry.amount,
      entry.orderId ?? null,
      entry.reference ?? null,
      entry.description ?? null,
    ],
  );
  return toEntry(rows[0] as EntryRow);
}

export async function findEntry(db: Queryable, id: string): Promise<LedgerEntry | undefined> {
  const { rows } = await db.query<EntryRow>(`SELECT ${columns} FROM wallet.ledger_entries WHERE id = $1`, [id]);
  return rows[0] ? toEntry(rows[0]) : undefined;
}

/** The top-up a partner's bank reference was credited by, if any. */
export async function findTopUp(db: Queryable, partnerId: string, reference: string): Promise<LedgerEntry | undefined> {
  const { rows } = await db.query<EntryRow>(
    `SELECT ${columns} FROM wallet.ledger_entries WHERE partner_id = $1 AND reference = $2 AND type = 'topup'`,
    [partnerId, reference],
  );
  return rows[0] ? toEntry(rows[0]) : undefined;
}

/** Newest first: by position in the partner's chain, which is the order the movements happened in. */
export async function listEntries(db: Queryable, partnerId: string, page: { limit: number; offset: number }): Promise<LedgerEntry[]> {
  const { rows } = await db.query<EntryRow>(
    `SELECT ${columns} FROM wallet.ledger_entries WHERE partner_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3`,
    [partnerId, page.limit, page.offset],
  );
  return rows.map(toEntry);
}

export async function countEntries(db: Queryable, partnerId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM wallet.ledger_entries WHERE partner_id = $1', [partnerId]);
  return rows[0]?.n ?? 0;
}
