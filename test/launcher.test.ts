// Protects how `npm start` wires the platform together: SUPPLIER_SIM_PORT moves the simulator and everything that finds it, the simulator's notifications follow the gateway's PORT, and the §13 variables reach the services that read them.
import { describe, expect, it } from 'vitest';
import { launcherConfig } from '../scripts/launcher/config.js';
import { serviceSpecs, testModeServices, testReplicaName, type Ports } from '../scripts/launcher/services.js';

const envOf = (env: NodeJS.ProcessEnv, name: string): Record<string, string | undefined> => {
  const { ports, env: passed } = launcherConfig(env);
  const spec = serviceSpecs(ports).find((s) => s.name === name)!;
  return { ...passed, ...spec.env, readyUrl: spec.readyUrl };
};

describe('the launcher', () => {
  it('when nothing is set, then the simulator listens on 8090 and posts its notifications to the gateway on 8080', () => {
    const sim = envOf({}, 'supplier-sim');
    expect(sim.PORT).toBe('8090');
    expect(sim.SUPPLIER_NOTIFICATION_URL).toBe('http://127.0.0.1:8080/supplier/v1/notifications');
    expect(envOf({}, 'provisioning').SUPPLIER_URL).toBe('http://127.0.0.1:8090');
  });

  it('when SUPPLIER_SIM_PORT and PORT are set, then the simulator, provisioning and the notification URL follow', () => {
    const env = { SUPPLIER_SIM_PORT: '18090', PORT: '18080' };
    expect(envOf(env, 'supplier-sim').PORT).toBe('18090');
    expect(envOf(env, 'supplier-sim').SUPPLIER_NOTIFICATION_URL).toBe('http://127.0.0.1:18080/supplier/v1/notifications');
    expect(envOf(env, 'provisioning').SUPPLIER_URL).toBe('http://127.0.0.1:18090');
    expect(envOf(env, 'gateway').PORT).toBe('18080');
  });

  it('when SUPPLIER_SIM_PORT is not a port, then the launcher refuses to start, naming it', () => {
    expect(() => launcherConfig({ SUPPLIER_SIM_PORT: 'abc' })).toThrow(/SUPPLIER_SIM_PORT/);
  });

  it('when ORDER_CANCEL_WINDOW and SUPPLIER_CALLBACK_SECRET are set, then they pass through; orders finds provisioning’s gRPC port', () => {
    const orders = envOf({ ORDER_CANCEL_WINDOW: '7d', SUPPLIER_CALLBACK_SECRET: 'a-secret-of-the-operator' }, 'orders');
    expect(orders.ORDER_CANCEL_WINDOW).toBe('7d');
    expect(orders.PROVISIONING_ADDR).toBe('127.0.0.1:50056');
    expect(envOf({ SUPPLIER_CALLBACK_SECRET: 'a-secret-of-the-operator' }, 'gateway').SUPPLIER_CALLBACK_SECRET).toBe('a-secret-of-the-operator');
  });

  it('when test-mode replicas are on (the default), then each saga service has a niced, CPU-budgeted test-lane replica the gateway sends test accounts to, and the services themselves serve live only', () => {
    const { ports, testModeReplicas } = launcherConfig({});
    expect(testModeReplicas).toEqual({ nice: 19, cpu: 0.25, adaptive: true });
    const withReplicas: Ports = { ...ports };
    testModeServices.forEach((service, i) => (withReplicas[testReplicaName(service)] = { grpc: 60_000 + i, health: 61_000 + i, ...(service === 'provisioning' ? { es2: 62_000 } : {}) }));
    const specs = new Map(serviceSpecs(withReplicas, {}, testModeReplicas).map((spec) => [spec.name, spec]));
    const gateway = specs.get('gateway')!;
    expect([...specs.keys()].at(-1), 'the gateway starts last').toBe('gateway');
    expect(gateway.env).toMatchObject({ ORDERS_TEST_ADDR: '127.0.0.1:60001', WALLET_TEST_ADDR: '127.0.0.1:60000', WEBHOOKS_TEST_ADDR: '127.0.0.1:60003' });
    for (const service of testModeServices) {
      expect(specs.get(service)!.env.EVENT_LANES, service).toBe('live');
      const replica = specs.get(testReplicaName(service))!;
      expect(replica).toMatchObject({ service, nice: 19, budgeted: true, env: { EVENT_LANES: 'test', WALLET_ADDR: '127.0.0.1:60000', PROVISIONING_ADDR: '127.0.0.1:60002' } });
      expect(specs.get(service)!.budgeted, `${service} (live) is not held to test mode's budget`).toBeUndefined();
    }
    expect(specs.get('provisioning-test')!.env.ES2_NOTIFY_PORT).toBe('62000');
    expect(specs.get('catalog')!.env.EVENT_LANES).toBeUndefined();
    expect(specs.get('supplier-sim')!.nice, "the simulator, test mode's upstream").toBe(19);
    expect(specs.get('orders')!.nice).toBeUndefined();
    expect(specs.get('supplier-sim')!.budgeted, 'the simulator also stands in for live upstreams in development').toBeUndefined();
  });

  it('when TEST_MODE_CPU is set, then the replicas share that many cores; off leaves them to nice alone; anything else is refused, naming it', () => {
    expect(launcherConfig({ TEST_MODE_CPU: '1.5' }).testModeReplicas).toEqual({ nice: 19, cpu: 1.5, adaptive: true });
    expect(launcherConfig({ TEST_MODE_CPU: '1.5', TEST_MODE_CPU_ADAPTIVE: 'off' }).testModeReplicas).toEqual({ nice: 19, cpu: 1.5, adaptive: false });
    expect(() => launcherConfig({ TEST_MODE_CPU_ADAPTIVE: 'sometimes' })).toThrow(/TEST_MODE_CPU_ADAPTIVE/);
    const { ports, testModeReplicas } = launcherConfig({ TEST_MODE_CPU: 'off' });
    expect(testModeReplicas).toEqual({ nice: 19 });
    expect(serviceSpecs({ ...ports, ...Object.fromEntries(testModeServices.map((s, i) => [testReplicaName(s), { grpc: 60_000 + i, health: 61_000 + i }])) }, {}, testModeReplicas).some((spec) => spec.budgeted)).toBe(false);
    expect(() => launcherConfig({ TEST_MODE_CPU: '0' })).toThrow(/TEST_MODE_CPU/);
    expect(() => launcherConfig({ TEST_MODE_CPU: 'lots' })).toThrow(/TEST_MODE_CPU/);
  });

  it('when TEST_MODE_REPLICAS=off, then one process per service serves both modes', () => {
    const { ports, testModeReplicas } = launcherConfig({ TEST_MODE_REPLICAS: 'off' });
    expect(testModeReplicas).toBeUndefined();
    const specs = serviceSpecs(ports, {}, testModeReplicas);
    expect(specs.some((spec) => spec.name.endsWith('-test') || spec.env.EVENT_LANES !== undefined)).toBe(false);
    expect(() => launcherConfig({ TEST_MODE_NICE: '25' })).toThrow(/TEST_MODE_NICE/);
  });
});
