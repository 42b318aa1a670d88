import type { Pool } from '@esim/postgres';

/** What the partners use cases need from the outside world. */
export interface PartnersDeps {
  pool: Pool;
  /** AES-256-GCM key for webhook secrets at rest and secrets in mail requests. */
  dataKey: Buffer;
  /** scrypt N. */
  passwordCost: number;
}

export const schema = 'partners';
