import type { EventEnvelope } from '@esim/events';
import { livemodeOf } from '@esim/ids';
import type { PoolClient } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { deleteAccountRows } from '../store/testAccountRows.js';

/**
 * A partner wiped its test data (contract §14, `partners.test_data.delete_requested`):
 * every provisioning row of that test account goes — its supplier-call
 * records, its SM-DP+ orders and their ES2+ notifications — found by the
 * account id each row was written with. Runs in the consumer's transaction,
 * so it happens once per event; a repeat finds nothing left. A live account
 * id is refused here too (the event's schema already refuses one): live rows
 * are never touched. The test-mode simulator's own eSIMs are left: they are
 * the upstream's data, not ours, and nothing reaches them once the orders are gone.
 */
export function deleteTestData(deps: { logger: Logger }): (event: EventEnvelope<'partners.test_data.delete_requested'>, db: PoolClient) => Promise<void> {
  return async (event, db) => {
    const { accountId } = event.data;
    if (livemodeOf(accountId)) {
      deps.logger.error({ accountId, eventId: event.id }, 'a test-data deletion named a live account; nothing deleted');
      return;
    }
    const deleted = await deleteAccountRows(db, accountId);
    deps.logger.info({ accountId, ...deleted }, 'test account data deleted');
  };
}
