import { z } from 'zod';
import { commonEnv, loadConfig } from '@esim/config';
import { defaultPorts, defaultTestModeCpu, defaultTestModeNice, type Ports } from './services.js';

const schema = z.object({
  DATABASE_URL: commonEnv.DATABASE_URL,
  REDIS_URL: commonEnv.REDIS_URL,
  REDIS_CLUSTER_NODES: commonEnv.REDIS_CLUSTER_NODES,
  NATS_URL: commonEnv.NATS_URL,
  PLATFORM_NAMESPACE: commonEnv.PLATFORM_NAMESPACE,
  PORT: commonEnv.port(defaultPorts.gateway!.http!),
  ADMIN_PORT: commonEnv.port(defaultPorts.gateway!.admin!),
  /** The supplier simulator's port (its supplier API and its control API, contract §13). */
  SUPPLIER_SIM_PORT: commonEnv.port(defaultPorts['supplier-sim']!.http!),
  /** Provisioning's ES2+ listener (contract §8); the simulator's callbacks follow it. */
  ES2_NOTIFY_PORT: commonEnv.port(defaultPorts.provisioning!.es2!),
  /**
   * Test mode's own replicas of wallet, orders, provisioning and webhooks at
   * a lower priority (services.ts `testModeServices`, contract §14): on by
   * default, so a saturated test key cannot slow live orders; `off` runs one
   * process per service serving both modes.
   */
  TEST_MODE_REPLICAS: z.enum(['on', 'off']).default('on'),
  /** Their `nice` (0 – 19). */
  TEST_MODE_NICE: z.coerce.number().int().min(0).max(19).default(defaultTestModeNice),
  /** The CPU they may use together, in cores (a control group's quota, ./cpuBudget.ts); `off`: `nice` alone. */
  TEST_MODE_CPU: z
    .union([z.literal('off'), z.coerce.number().gt(0, 'must be more than 0 cores, or off').max(256)])
    .default(defaultTestModeCpu),
  /**
   * `on`: that budget is a ceiling, moved with what the rest of the machine
   * leaves over (./spareCpu.ts); `off`: a fixed budget.
   */
  TEST_MODE_CPU_ADAPTIVE: z.enum(['on', 'off']).default('on'),
  SMTP_URL: z.string().optional(),
  ADMIN_TOKEN: z.string().optional(),
});

/**
 * What the launcher itself needs; every other variable passes through to the
 * services untouched (ORDER_CANCEL_WINDOW reaches orders, SUPPLIER_CALLBACK_SECRET
 * the gateway and the simulator). The simulator's SUPPLIER_NOTIFICATION_URL
 * follows PORT (services.ts `callback`).
 */
export function launcherConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(schema, env);
  const ports: Ports = {
    ...defaultPorts,
    gateway: { http: config.PORT, admin: config.ADMIN_PORT },
    'supplier-sim': { ...defaultPorts['supplier-sim'], http: config.SUPPLIER_SIM_PORT },
    provisioning: { ...defaultPorts.provisioning, es2: config.ES2_NOTIFY_PORT },
  };
  const testModeReplicas =
    config.TEST_MODE_REPLICAS === 'on'
      ? { nice: config.TEST_MODE_NICE, ...(config.TEST_MODE_CPU === 'off' ? {} : { cpu: config.TEST_MODE_CPU, adaptive: config.TEST_MODE_CPU_ADAPTIVE === 'on' }) }
      : undefined;
  return { config, ports, testModeReplicas, env: { ...env, DATABASE_URL: config.DATABASE_URL, REDIS_URL: config.REDIS_URL, NATS_URL: config.NATS_URL } };
}
