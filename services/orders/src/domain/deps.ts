import type { Pool } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import type { Catalog } from '../clients/catalog.js';
import type { Wallet } from '../clients/wallet.js';

/** What the use cases need: the database and the two services an order calls. */
export interface OrdersDeps {
  pool: Pool;
  catalog: Catalog;
  wallet: Wallet;
  /** The deployment's one currency (contract §3). */
  currency: string;
  logger: Logger;
}
