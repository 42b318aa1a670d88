import type { EventEnvelope } from '@esim/events';
import { PermanentEventError } from '@esim/events';
import { livemodeOf } from '@esim/ids';
import type { Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { deleteAccountRows } from '../store/retentionStore.js';

/**
 * A partner wiped its test data (§14, `partners.test_data.delete_requested`):
 * every event, delivery and endpoint of the test account goes, in the
 * consumer's exactly-once transaction. Idempotent: a second request (or a
 * redelivery) finds nothing and deletes nothing. A live account id is
 * refused for good (dead-lettered, nothing deleted): live data is never
 * wiped by this path, whatever a publisher sends. An attempt in flight for a
 * deleted delivery loses its row, so its outcome is not recorded; the
 * partner's test receiver may see that one last attempt.
 */
export async function deleteTestData(db: Queryable, event: EventEnvelope<'partners.test_data.delete_requested'>, logger: Logger): Promise<void> {
  const { accountId } = event.data;
  if (livemodeOf(accountId)) throw new PermanentEventError(`test data deletion names a live account (${accountId.slice(0, 64)}); refused`);
  const deleted = await deleteAccountRows(db, accountId);
  logger.info({ accountId, ...deleted }, 'test data deleted');
}
