import type { Pool } from '@esim/postgres';
import type { HashingPool } from './hashingPool.js';

/** What the partners use cases need from the outside world. */
export interface PartnersDeps {
  pool: Pool;
  /** AES-256-GCM key for webhook secrets at rest and secrets in mail requests. */
  dataKey: Buffer;
  /** scrypt N. */
  passwordCost: number;
  /** Bounds every password hash and check (§3: a saturated check answers 503 at once). */
  hashing: HashingPool;
}

export const schema = 'partners';
