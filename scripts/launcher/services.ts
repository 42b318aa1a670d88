/**
 * The service list: every process of the platform with the ports it listens
 * on. `npm start`, the end-to-end harness, the benchmarks and the deployment
 * files (docker-compose.yml and deploy/k8s, generated from this list by
 * `npm run deploy:gen`) all read it, so a new service is one entry here plus
 * its folder under services/.
 */

/** A kind of port, and the variable that carries it into the service's config. */
export const portVariables = {
  health: 'HEALTH_PORT',
  grpc: 'GRPC_PORT',
  http: 'PORT',
  admin: 'ADMIN_PORT',
  /** Provisioning's ES2+ HandleDownloadProgressInfo listener (contract §8). */
  es2: 'ES2_NOTIFY_PORT',
} as const;
export type PortKind = keyof typeof portVariables;

/** Infrastructure a service connects to (compose waits for it; Kubernetes NetworkPolicies allow it). */
export type Dependency = 'postgres' | 'redis' | 'nats' | 'smtp';

export interface ServiceEntry {
  /** The folder under services/; also its OTEL_SERVICE_NAME, log file and Kubernetes name. */
  name: string;
  /** Default ports (npm start); the e2e harness picks free ones. */
  ports: Partial<Record<PortKind, number>>;
  needs: Dependency[];
  /** Secrets it reads (from var/secrets in development, a Secret in production). */
  secrets?: Array<'ADMIN_TOKEN' | 'JWT_SECRET' | 'DATA_ENCRYPTION_KEY' | 'SUPPLIER_CALLBACK_SECRET'>;
  /**
   * The variable other services find it by, when it is not `<NAME>_ADDR` of
   * its gRPC port (the supplier's URL); `aliases` are set to the same URL
   * (the simulator plays both upstreams: SMDP_ES2_URL, CONNECTIVITY_URL, and
   * test mode's TEST_MODE_SMDP_ES2_URL, TEST_MODE_CONNECTIVITY_URL), and
   * an operator's own value of any of them wins under `npm start` (contract §8).
   */
  url?: { variable: string; port: PortKind; aliases?: readonly string[] };
  /**
   * An endpoint of this service that another one POSTs back to, handed over as
   * a full URL: the gateway's `/supplier/v1/notifications`, which the supplier
   * simulator calls (`SUPPLIER_NOTIFICATION_URL`). Unlike `url`, it is no third party.
   */
  callback?: { variable: string; port: PortKind; path: string };
  /** Reached from outside the platform (published ports in compose, a Service of type LoadBalancer/Ingress in Kubernetes). */
  public?: PortKind[];
  /** Starts once every other service is ready (the gateway, so its first request finds them up). */
  last?: boolean;
}

export const services: readonly ServiceEntry[] = [
  { name: 'partners', ports: { grpc: 50051, health: 9091 }, needs: ['postgres', 'nats'], secrets: ['DATA_ENCRYPTION_KEY'] },
  { name: 'catalog', ports: { grpc: 50052, health: 9092 }, needs: ['postgres', 'nats'] },
  { name: 'mailer', ports: { health: 9093 }, needs: ['postgres', 'nats', 'smtp'], secrets: ['DATA_ENCRYPTION_KEY'] },
  { name: 'wallet', ports: { grpc: 50053, health: 9094 }, needs: ['postgres', 'nats'] },
  { name: 'orders', ports: { grpc: 50054, health: 9095 }, needs: ['postgres', 'nats'] },
  {
    name: 'provisioning',
    ports: { grpc: 50056, health: 9096, es2: 8443 },
    needs: ['postgres', 'nats'],
    // The SM-DP+ (the simulator under npm start) calls ES2+ HandleDownloadProgressInfo here.
    callback: { variable: 'SMDP_NOTIFY_URL', port: 'es2', path: '/gsma/rsp2/es2plus/handleDownloadProgressInfo' },
    // Reached by the SM-DP+ from outside the platform (mutual TLS in production).
    public: ['es2'],
  },
  { name: 'webhooks', ports: { grpc: 50055, health: 9098 }, needs: ['postgres', 'nats'], secrets: ['DATA_ENCRYPTION_KEY'] },
  {
    name: 'supplier-sim',
    ports: { http: 8090, health: 9097 },
    needs: [],
    secrets: ['SUPPLIER_CALLBACK_SECRET'],
    // Test mode's upstreams (§14) are the simulator wherever the platform runs; the live ones are too unless an operator names real ones.
    url: { variable: 'SUPPLIER_URL', port: 'http', aliases: ['SMDP_ES2_URL', 'CONNECTIVITY_URL', 'TEST_MODE_SMDP_ES2_URL', 'TEST_MODE_CONNECTIVITY_URL'] },
  },
  {
    name: 'gateway',
    ports: { http: 8080, admin: 8081 },
    needs: ['redis', 'nats'],
    secrets: ['ADMIN_TOKEN', 'JWT_SECRET', 'SUPPLIER_CALLBACK_SECRET'],
    callback: { variable: 'SUPPLIER_NOTIFICATION_URL', port: 'http', path: '/supplier/v1/notifications' },
    public: ['http', 'admin'],
    last: true,
  },
];

/** `supplier-sim` → `SUPPLIER_SIM`. */
export const constantCase = (name: string) => name.toUpperCase().replaceAll('-', '_');

/** The port a service answers `/readyz` on. */
export function readinessPort(entry: ServiceEntry, ports: Partial<Record<PortKind, number>>): number {
  const port = ports.health ?? ports.http;
  if (port === undefined) throw new Error(`${entry.name} has neither a health nor an http port`);
  return port;
}

/** Ports of every service, by service name. */
export type Ports = Record<string, Partial<Record<PortKind, number>>>;

export const defaultPorts: Ports = Object.fromEntries(services.map((entry) => [entry.name, { ...entry.ports }]));

/**
 * How every service finds the others: `<NAME>_ADDR=host:port` for each gRPC
 * API and the named URL variables. Every service gets all of them; each
 * config reads the ones it uses.
 */
export function addressEnv(ports: Ports, host: (name: string) => string = () => '127.0.0.1'): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of services) {
    const own = ports[entry.name] ?? {};
    if (own.grpc !== undefined) env[`${constantCase(entry.name)}_ADDR`] = `${host(entry.name)}:${own.grpc}`;
    if (entry.url && own[entry.url.port] !== undefined) {
      for (const variable of [entry.url.variable, ...(entry.url.aliases ?? [])]) env[variable] = `http://${host(entry.name)}:${own[entry.url.port]}`;
    }
    const callback = entry.callback;
    if (callback && own[callback.port] !== undefined) env[callback.variable] = `http://${host(entry.name)}:${own[callback.port]}${callback.path}`;
  }
  return env;
}

/** The variables that give one service its own ports. */
export function portEnv(ports: Partial<Record<PortKind, number>>): Record<string, string> {
  return Object.fromEntries(Object.entries(ports).map(([kind, port]) => [portVariables[kind as PortKind], String(port)]));
}

export interface ServiceSpec {
  /** The process's name: its log file and its key among the running services. */
  name: string;
  /** The service it runs (its folder under services/ and its OTEL_SERVICE_NAME); `name` unless a test-mode replica. */
  service?: string;
  env: Record<string, string>;
  /** Answers 200 once the service can take traffic. */
  readyUrl: string;
  /** Scheduling priority (`nice`, 0 – 19): a test-mode replica yields the CPU to live work. */
  nice?: number;
  /** Joins test mode's CPU budget (TestModeReplicas `cpu`, ./cpuBudget.ts) once it is ready: it boots at full speed, then serves within the budget. */
  budgeted?: boolean;
}

/** Upstream URLs an operator may point elsewhere (a real SM-DP+, a real provider): their value in the launcher's environment wins. */
const operatorUrls = new Set(services.flatMap((entry) => (entry.url ? [entry.url.variable, ...(entry.url.aliases ?? [])] : [])));

/**
 * Test mode's own processes (contract §14, "nothing a test key sends can …
 * slow live data"; docs/architecture.md, "Test mode's own lane"): a replica
 * of each service on a test order's path, consuming only the test lane
 * (EVENT_LANES=test) and taking the gateway's calls for test accounts, at a
 * lower scheduling priority, while the services' own processes serve live
 * only. Catalog and partners are shared: a test order reads them as live does.
 * The supplier simulator, test mode's upstream, runs at that priority too.
 */
export const testModeServices = ['wallet', 'orders', 'provisioning', 'webhooks'] as const;
export const testReplicaName = (service: string) => `${service}-test`;

export interface TestModeReplicas {
  /** Their `nice` (default `defaultTestModeNice`). */
  nice?: number;
  /**
   * The CPU all of them together may use, in cores (a Linux control group's
   * quota, ./cpuBudget.ts; what a Kubernetes CPU limit is); none: `nice` alone.
   */
  cpu?: number;
  /** `cpu` is a ceiling, the budget following what the rest of the machine leaves over (./spareCpu.ts); otherwise fixed. */
  adaptive?: boolean;
}

/**
 * A quarter of one core for test mode's four replicas together, under `npm
 * start`: enough that one order at a time runs unthrottled, and on an idle
 * machine ~6 test orders a second get through (docs/decisions.md, "Test
 * mode's CPU budget"). It is a ceiling: while live keeps the machine busy
 * the launcher shrinks it (./spareCpu.ts, "Test mode yields to live").
 */
export const defaultTestModeCpu = 0.25;

/**
 * The lowest priority `nice` offers: under contention a nice-19 process gets
 * about 1/70 of a nice-0 one's CPU share, so test mode runs on what live
 * leaves (docs/benchmarks.md, "Test mode beside live": nice 10 left live p50
 * 44–55 ms beside a saturated test key, nice 19 37 ms, alone 22 ms).
 */
export const defaultTestModeNice = 19;

/** What the launcher needs to start each service on this machine (and, with `testMode`, test mode's replicas). */
export function serviceSpecs(ports: Ports, env: NodeJS.ProcessEnv = {}, testMode?: TestModeReplicas): ServiceSpec[] {
  const addresses = addressEnv(ports);
  for (const variable of operatorUrls) if (env[variable]) delete addresses[variable];
  const specs: ServiceSpec[] = services.map((entry) => {
    const own = ports[entry.name] ?? entry.ports;
    return { name: entry.name, env: { ...addresses, ...portEnv(own) }, readyUrl: `http://127.0.0.1:${readinessPort(entry, own)}/readyz` };
  });
  return testMode ? withTestModeReplicas(specs, ports, testMode) : specs;
}

function withTestModeReplicas(specs: ServiceSpec[], ports: Ports, testMode: TestModeReplicas): ServiceSpec[] {
  const testAddress = (service: string) => {
    const grpc = ports[testReplicaName(service)]?.grpc;
    if (grpc === undefined) throw new Error(`no ports for ${testReplicaName(service)}`);
    return `127.0.0.1:${grpc}`;
  };
  // A test replica calls the other test replicas; the gateway sends them a test account's calls.
  const testAddresses = { WALLET_ADDR: testAddress('wallet'), ORDERS_ADDR: testAddress('orders'), PROVISIONING_ADDR: testAddress('provisioning'), WEBHOOKS_ADDR: testAddress('webhooks') };
  const served = new Set<string>(testModeServices);
  const adjusted = specs.map((spec) => {
    if (served.has(spec.name)) return { ...spec, env: { ...spec.env, EVENT_LANES: 'live' } };
    // The simulator is test mode's upstream wherever the platform runs (§14); live orders reach it only when no real
    // upstream is named (development), and then as a stand-in for a supplier whose CPU is not ours.
    if (spec.name === 'supplier-sim') return { ...spec, nice: testMode.nice ?? defaultTestModeNice };
    if (spec.name === 'gateway') return { ...spec, env: { ...spec.env, WALLET_TEST_ADDR: testAddresses.WALLET_ADDR, ORDERS_TEST_ADDR: testAddresses.ORDERS_ADDR, WEBHOOKS_TEST_ADDR: testAddresses.WEBHOOKS_ADDR } };
    return spec;
  });
  const replicas = testModeServices.map((service): ServiceSpec => {
    const entry = services.find((e) => e.name === service)!;
    const own = ports[testReplicaName(service)]!;
    const base = specs.find((spec) => spec.name === service)!;
    return {
      name: testReplicaName(service),
      service,
      env: { ...base.env, ...portEnv(own), ...testAddresses, EVENT_LANES: 'test' },
      readyUrl: `http://127.0.0.1:${readinessPort(entry, own)}/readyz`,
      nice: testMode.nice ?? defaultTestModeNice,
      ...(testMode.cpu ? { budgeted: true } : {}),
    };
  });
  // Before the gateway, which starts last.
  return [...adjusted.filter((spec) => spec.name !== 'gateway'), ...replicas, ...adjusted.filter((spec) => spec.name === 'gateway')];
}
