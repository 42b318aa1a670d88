import type { PoolClient } from '@esim/postgres';
import { findPartner } from '../store/partnerStore.js';
import type { Partner } from './partner.js';
import { partnerNotFound } from './partnerRules.js';

/** Locks the partner row for the rest of the transaction; 404 when there is none. */
export async function lockPartner(db: PoolClient, id: string): Promise<Partner> {
  const partner = await findPartner(db, id, { forUpdate: true });
  if (!partner) throw partnerNotFound(id);
  return partner;
}
