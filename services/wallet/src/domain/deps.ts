import type { Pool } from '@esim/postgres';

/** What the RPC use cases need: the database and the deployment's one currency (for messages and views). */
export interface WalletDeps {
  pool: Pool;
  currency: string;
}
