import type { ServiceContext } from '@esim/service';
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

export async function startConsumers({ consume, logger }: ServiceContext<Config>): Promise<void> {
  await consume({ durable: 'orders_provisioning_succeeded', type: 'provisioning.succeeded', ...delivery }, recordProvisioned(logger));
  await consume({ durable: 'orders_provisioning_failed', type: 'provisioning.failed', ...delivery }, recordProvisioningFailure(logger));
  await consume({ durable: 'orders_wallet_refunded', type: 'wallet.order.refunded', ...delivery }, recordRefund(logger));
  // The eSIM lifecycle: the SM-DP+'s reports (contract §8).
  await consume({ durable: 'orders_esim_progress', type: 'provisioning.esim.progress', ...delivery }, esimLifecycle.recordSmdpReport(logger));
}
