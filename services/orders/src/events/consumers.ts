import type { ServiceContext } from '@esim/service';
import { deleteTestAccount } from '../domain/deleteTestAccount.js';
import { recordProvisioned } from '../domain/recordProvisioned.js';
import { recordProvisioningFailure } from '../domain/recordProvisioningFailure.js';
import { recordRefund } from '../domain/recordRefund.js';
import { esimLifecycle } from '../esims/lifecycle.js';
import type { Config } from '../config.js';

/**
 * Every saga step after payment arrives as an event; each is applied exactly
 * once (effect and event id commit together). Redeliveries back off from 1 s
 * to a minute; 50 deliveries outlast a database outage of well over half an
 * hour before an order would be left unsettled (as the wallet's consumers).
 */
const delivery = {
  ackWaitMs: 30_000,
  maxDeliver: 50,
  retry: { firstMs: 1_000, maxMs: 60_000 },
};

/**
 * The saga's hot steps are database work only: under a burst, what waits is
 * applied up to 64 events per transaction (packages/events, `batch`).
 */
const batched = { ...delivery, batch: 64 };

export async function startConsumers({ consume, logger }: ServiceContext<Config>): Promise<void> {
  await consume({ durable: 'orders_provisioning_succeeded', type: 'provisioning.succeeded', ...batched }, recordProvisioned(logger));
  await consume({ durable: 'orders_provisioning_failed', type: 'provisioning.failed', ...batched }, recordProvisioningFailure(logger));
  await consume({ durable: 'orders_wallet_refunded', type: 'wallet.order.refunded', ...batched }, recordRefund(logger));
  // The eSIM lifecycle: the SM-DP+'s reports (contract §8).
  await consume({ durable: 'orders_esim_progress', type: 'provisioning.esim.progress', ...delivery }, esimLifecycle.recordSmdpReport(logger));
  // Test mode (contract §14): a partner's test data is deleted on request; the deletion and the event's id commit together.
  await consume({ durable: 'orders_test_data_deleted', type: 'partners.test_data.delete_requested', ...delivery }, async (event, db) => {
    await deleteTestAccount(db, logger, event.data.accountId);
  });
}
