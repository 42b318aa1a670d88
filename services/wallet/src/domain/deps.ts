import type { Logger } from '@esim/telemetry';
import type { Pool } from '@esim/postgres';

/** What the RPC use cases need: the database and the deployment's one currency (for messages and views). */
export interface WalletDeps {
  pool: Pool;
  currency: string;
  /** For what a use case notes without failing (a refund that names another partner). */
  logger?: Logger;
}
