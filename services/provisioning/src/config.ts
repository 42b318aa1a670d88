import { z } from 'zod';
import { commonEnv, loadConfig } from '@esim/config';
import { serviceEnv } from '@esim/service';

const ms = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
/** An empty variable means unset, as in a shell or a compose file. */
const optional = <T extends z.ZodType>(inner: T) => z.preprocess((value) => (value === '' ? undefined : value), inner.optional());

/** The simulator's address under npm start: the default of both upstreams outside production. */
export const simulatorUrl = 'http://127.0.0.1:8090';

/** True when a URL names the repository's simulator (its service name or its npm start address), which production never sells from. */
export function namesSimulator(url: string): boolean {
  const { hostname, port } = new URL(url);
  return /(^|[.-])(supplier-sim|simulator)([.-]|$)/i.test(hostname) || ((hostname === '127.0.0.1' || hostname === 'localhost') && port === '8090');
}

const schema = z
  .object({
    ...serviceEnv(9096),
    /** RevokeBundle (ProvisioningService), for the orders service's cancellations. */
    GRPC_PORT: commonEnv.port(50056),
    DATABASE_URL: commonEnv.DATABASE_URL,
    /** The SM-DP+'s ES2+ base URL (contract §8); the simulator in development. */
    SMDP_ES2_URL: optional(httpUrl),
    /** This operator's functionRequesterIdentifier at the SM-DP+. */
    SMDP_REQUESTER_ID: z.string().min(1).max(256).default('esim-platform'),
    /** PEM files: the ES2+ client identity, and the CA the SM-DP+ and its callbacks are checked against. */
    SMDP_CLIENT_CERT: optional(z.string().min(1)),
    SMDP_CLIENT_KEY: optional(z.string().min(1)),
    SMDP_CA: optional(z.string().min(1)),
    /** The profile type DownloadOrder asks for when the plan names none. */
    SMDP_PROFILE_TYPE: z.string().min(1).max(256).default('esim-data'),
    /** The SM-DP+ address of activation codes when ConfirmOrder names none (optional there); default: SMDP_ES2_URL's host. */
    SMDP_ADDRESS: optional(z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a host name')),
    /** Provisioning's listener for ES2+ HandleDownloadProgressInfo (contract §8). */
    ES2_NOTIFY_PORT: commonEnv.port(8443),
    ES2_NOTIFY_HOST: z.string().min(1).default('0.0.0.0'),
    /** The connectivity provider's API (bundles, revocation, suspension); SUPPLIER_URL is read as an alias. */
    CONNECTIVITY_URL: optional(httpUrl),
    SUPPLIER_URL: optional(httpUrl),
    /**
     * Test mode's upstreams (contract §14): every call for a test account's
     * order goes here, in production too; they name the simulator deployed for
     * test mode alone. The simulator's control API (the test helpers) is served
     * at TEST_MODE_CONNECTIVITY_URL, as the simulator serves both on one port.
     */
    TEST_MODE_SMDP_ES2_URL: optional(httpUrl),
    TEST_MODE_CONNECTIVITY_URL: optional(httpUrl),
    /** One upstream call's deadline; a call past it counts as a transient failure. */
    SUPPLIER_TIMEOUT_MS: ms(100, 120_000, 10_000),
    /** How long after the order was paid transient supplier failures are retried before the order fails (contract §8: 15 min). */
    PROVISIONING_RETRY_WINDOW_MS: ms(1_000, 86_400_000, 900_000),
    /** First retry delay; each later one doubles, up to the max. */
    PROVISIONING_RETRY_BASE_MS: ms(10, 600_000, 1_000),
    PROVISIONING_RETRY_MAX_MS: ms(10, 3_600_000, 60_000),
    /** Supplier calls in flight at once per replica; each holds a Postgres connection for its duration. */
    PROVISIONING_CONCURRENCY: z.coerce.number().int().min(1).max(12).default(8),
  })
  .refine((env) => env.PROVISIONING_RETRY_MAX_MS >= env.PROVISIONING_RETRY_BASE_MS, {
    path: ['PROVISIONING_RETRY_MAX_MS'],
    message: 'must be at least PROVISIONING_RETRY_BASE_MS',
  })
  .superRefine((env, ctx) => {
    const connectivity = env.CONNECTIVITY_URL ?? env.SUPPLIER_URL;
    const tls = [env.SMDP_CLIENT_CERT, env.SMDP_CLIENT_KEY, env.SMDP_CA].filter(Boolean).length;
    if (tls !== 0 && tls !== 3) ctx.addIssue({ code: 'custom', path: ['SMDP_CLIENT_CERT'], message: 'SMDP_CLIENT_CERT, SMDP_CLIENT_KEY and SMDP_CA go together' });
    // Contract §8: live orders only ever reach real upstreams.
    if (env.NODE_ENV !== 'production') return;
    const upstreams = [
      ['SMDP_ES2_URL', env.SMDP_ES2_URL],
      ['CONNECTIVITY_URL', connectivity],
    ] as const;
    for (const [name, url] of upstreams) {
      if (!url) ctx.addIssue({ code: 'custom', path: [name], message: 'is required in production (the real upstream; the simulator serves test mode only)' });
      else if (namesSimulator(url)) ctx.addIssue({ code: 'custom', path: [name], message: 'names the simulator; production sells only from a real upstream' });
    }
    for (const name of ['SMDP_CLIENT_CERT', 'SMDP_CLIENT_KEY', 'SMDP_CA'] as const) {
      if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'is required in production (ES2+ runs over mutual TLS)' });
    }
    if (env.SMDP_ES2_URL && !env.SMDP_ES2_URL.startsWith('https:')) ctx.addIssue({ code: 'custom', path: ['SMDP_ES2_URL'], message: 'must be https:// in production' });
  })
  .transform((env) => ({
    ...env,
    SMDP_ES2_URL: env.SMDP_ES2_URL ?? simulatorUrl,
    CONNECTIVITY_URL: env.CONNECTIVITY_URL ?? env.SUPPLIER_URL ?? simulatorUrl,
    SMDP_ADDRESS: env.SMDP_ADDRESS ?? new URL(env.SMDP_ES2_URL ?? simulatorUrl).hostname,
    TEST_MODE_SMDP_ES2_URL: env.TEST_MODE_SMDP_ES2_URL ?? simulatorUrl,
    TEST_MODE_CONNECTIVITY_URL: env.TEST_MODE_CONNECTIVITY_URL ?? simulatorUrl,
  }));

export type Config = z.output<typeof schema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(schema, env);
}
