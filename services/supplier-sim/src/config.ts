import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { commonEnv, loadConfig, varDir, withDevSecrets } from '@esim/config';
import { serviceEnv } from '@esim/service';

/** An empty variable (`SUPPLIER_NOTIFICATION_URL=`) means "unset", as it does in a shell or a compose file. */
const optional = <T extends z.ZodType>(inner: T) => z.preprocess((value) => (value === '' ? undefined : value), inner.optional());

const schema = z.object({
  ...serviceEnv(9097),
  /** The supplier API's port (SUPPLIER_URL of the platform points here); the control API (§13) shares it. */
  PORT: commonEnv.port(8090),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Delay before every supplier API answer, as a real upstream has; 0 answers at once (tests). */
  SUPPLIER_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(300),
  /** Share of supplier API requests answered with a random 503, from 0 (never) to 1 (always). */
  SUPPLIER_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
  /** The SM-DP+ server named in every activation code. */
  SUPPLIER_SMDP_ADDRESS: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i, 'must be a host name such as smdp.example.com')
    .default('smdp.supplier-sim.local'),
  /**
   * Where the control API POSTs the supplier's notifications (the platform's
   * `/supplier/v1/notifications`). Unset: the supplier API works, the control
   * API answers 503 not_configured.
   */
  SUPPLIER_NOTIFICATION_URL: optional(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })),
  /**
   * The platform's ES2+ HandleDownloadProgressInfo URL (provisioning's
   * ES2_NOTIFY_PORT, `…/gsma/rsp2/es2plus/handleDownloadProgressInfo`):
   * the SM-DP+ side reports installs and deletions there. Unset: installs
   * are reported as the connectivity provider's first attach instead.
   */
  SMDP_NOTIFY_URL: optional(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })),
  /** The SM-DP+'s functionRequesterIdentifier on its callbacks. */
  SMDP_SIM_REQUESTER_ID: z.string().min(1).default('supplier-sim-smdp'),
  /**
   * PEM files: with all three, the SM-DP+ side also listens over mutual TLS
   * on SUPPLIER_SIM_TLS_PORT (its server identity; callers' certificates
   * must chain to the CA) and presents the same identity on its callbacks.
   */
  SUPPLIER_SIM_TLS_CERT: optional(z.string().min(1)),
  SUPPLIER_SIM_TLS_KEY: optional(z.string().min(1)),
  SUPPLIER_SIM_TLS_CA: optional(z.string().min(1)),
  SUPPLIER_SIM_TLS_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  /** Signs every notification (X-Supplier-Signature); the gateway verifies with the same secret. */
  SUPPLIER_CALLBACK_SECRET: z.string().min(16, 'must be at least 16 characters'),
  /** The folder of the simulator's state file: its eSIMs, bundles and use survive a restart. */
  SUPPLIER_SIM_DATA_DIR: z.string().min(1).default(join(varDir, 'supplier-sim')),
});

export type Config = z.output<typeof schema>;

/** Outside production a missing callback secret is generated once into var/secrets, where the gateway finds the same one. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, withDevSecrets(env, { SUPPLIER_CALLBACK_SECRET: () => randomBytes(32).toString('base64url') }));
}
