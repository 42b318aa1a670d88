import type { Pool } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import type { Catalog } from '../clients/catalog.js';
import type { Provisioning } from '../clients/provisioning.js';
import type { Wallet } from '../clients/wallet.js';

/** What the use cases need: the database and the services an order calls. */
export interface OrdersDeps {
  pool: Pool;
  catalog: Catalog;
  wallet: Wallet;
  provisioning: Provisioning;
  /** ORDER_CANCEL_WINDOW: how long after provisioning an unused order can be cancelled. */
  cancelWindowMs: number;
  /** The deployment's one currency (contract §3). */
  currency: string;
  logger: Logger;
}
