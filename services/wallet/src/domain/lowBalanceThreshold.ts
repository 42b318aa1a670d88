import { withTransaction } from '@esim/postgres';
import { readLowBalanceThreshold, setLowBalanceThreshold as storeThreshold } from '../store/lowBalanceStore.js';
import type { WalletDeps } from './deps.js';
import { check, limits } from './rules.js';

/**
 * The partner's `lowBalanceThreshold` (§9), in minor units, or null for
 * none. Setting it re-arms the announcement: the next debit that leaves the
 * balance below it emits `wallet.balance_low`.
 */
export async function setLowBalanceThreshold(deps: WalletDeps, partnerId: string, threshold: number | null): Promise<number | null> {
  const checks = check().id('partnerId', 'ptn', partnerId);
  if (threshold !== null) checks.integer('lowBalanceThreshold', threshold, 0, limits.orderPriceMax);
  checks.done();
  await withTransaction(deps.pool, (db) => storeThreshold(db, partnerId, threshold));
  return threshold;
}

export function getLowBalanceThreshold(deps: WalletDeps, partnerId: string): Promise<number | null> {
  check().id('partnerId', 'ptn', partnerId).done();
  return readLowBalanceThreshold(deps.pool, partnerId);
}
