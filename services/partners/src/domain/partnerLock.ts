import { AppError } from '@esim/errors';
import type { PoolClient } from '@esim/postgres';
import { findPartner } from '../store/partnerStore.js';
import type { PartnerRow } from '../store/rows.js';

/** Locks the partner row for the rest of the transaction; 404 when there is none. */
export async function lockPartner(db: PoolClient, id: string): Promise<PartnerRow> {
  const partner = await findPartner(db, id, { forUpdate: true });
  if (!partner) throw new AppError('PARTNER_NOT_FOUND', `No partner ${id}.`);
  return partner;
}
