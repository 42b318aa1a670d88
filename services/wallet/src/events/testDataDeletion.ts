import type { ServiceContext } from '@esim/service';
import type { Config } from '../config.js';
import { deleteTestAccount } from '../domain/deleteTestAccount.js';

/** A wipe can wait out a database outage: redeliveries back off from 1 s to a minute (as the order outcomes'). */
const delivery = { ackWaitMs: 30_000, maxDeliver: 50, retry: { firstMs: 1_000, maxMs: 60_000 } };

/** Contract §14: a partner's test data is deleted on request; the deletion and the event's id commit together. */
export async function consumeTestDataDeletions({ consume, logger }: ServiceContext<Config>): Promise<void> {
  await consume({ durable: 'wallet_test_data_deleted', type: 'partners.test_data.delete_requested', ...delivery }, async (event, db) => {
    await deleteTestAccount(db, logger, event.data.accountId);
  });
}
