import { isAccountId, livemodeOf } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { deleteTestAccountRows, type DeletedRows } from '../store/testAccountStore.js';

/**
 * A partner wiped its test data (contract §14, `partners.test_data.delete_requested`):
 * the test account's wallet, ledger, reservations and low-balance threshold
 * all go, in one transaction. Idempotent: a redelivery, or a second request,
 * finds nothing and deletes nothing. Anything but a test account id is
 * refused (logged, nothing deleted) and the event is still acknowledged:
 * live money is never deleted, and retrying a wrong id cannot make it right.
 */
export async function deleteTestAccount(db: Queryable, logger: Logger, accountId: string): Promise<DeletedRows | 'refused'> {
  if (!isAccountId(accountId) || livemodeOf(accountId)) {
    logger.error({ accountId }, 'test data deletion names no test account; nothing deleted');
    return 'refused';
  }
  const deleted = await deleteTestAccountRows(db, accountId);
  logger.info({ accountId, ...deleted }, 'test account wallet data deleted');
  return deleted;
}
