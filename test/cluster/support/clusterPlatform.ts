import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startNatsCluster, startRedisCluster, type NatsCluster, type RedisCluster } from '@esim/testing';
import { grpcIdentityEnv } from '../../../scripts/launcher/platform.js';
import { preflight } from '../../../scripts/launcher/preflight.js';
import { freePorts } from '../../../scripts/launcher/ports.js';
import { constantCase, portEnv, readinessPort, services, type Ports } from '../../../scripts/launcher/services.js';
import { repoRoot, startService, stopService, waitUntilReady, type LaunchMode, type Running } from '../../../scripts/launcher/supervisor.js';

/**
 * The platform as production runs it: a 3-node JetStream cluster with every
 * stream at R3, a Redis Cluster of three masters and three replicas, and two
 * replicas of every service, each replica finding the other services'
 * replicas through a fixed `ipv4:` list (grpc-js balances over those that
 * answer, as it does over a headless Service's pods). The supplier simulator
 * runs once: it stands in for an outside supplier and keeps its eSIMs in
 * memory, so two of it would disagree.
 */
export interface ClusterPlatform {
  nats: NatsCluster;
  redis: RedisCluster;
  namespace: string;
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  logDir: string;
  /** Ports per replica: replicaPorts[0] is replica A, [1] replica B. */
  replicaPorts: [Ports, Ports];
  /** Every running process by `name#replica`. */
  processes: Map<string, Running>;
  /** The names of the services in start order (the gateway last), with how many replicas each runs. */
  layout: Array<{ name: string; replicas: number }>;
  /**
   * One wave of a rolling restart: that replica of every service (the
   * supplier simulator aside: it is the outside world) gets SIGTERM, exits,
   * starts again and becomes ready, all services at once, as Kubernetes
   * rolls every Deployment in parallel, while the other replica serves.
   */
  restartReplica(replica: number): Promise<Record<string, { downMs: number; readyMs: number }>>;
  /** Every replica's /readyz answers 200. */
  allReady(): Promise<boolean>;
  stop(): Promise<void>;
}

const singletons = new Set(['supplier-sim']);

/** `mode`: sources through tsx (the suite) or the compiled dist/ (the benchmark). */
export async function startClusterPlatform(extraEnv: Record<string, string>, options: { mode?: LaunchMode; logDir?: string } = {}): Promise<ClusterPlatform> {
  const suffix = randomBytes(4).toString('hex');
  const namespace = `clu${suffix}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/esim_cluster_${suffix}`;
  const [nats, redis] = await Promise.all([startNatsCluster(), startRedisCluster()]);
  const logDir = options.logDir ?? join(repoRoot, 'var', 'cluster', namespace);
  const replicaPorts: [Ports, Ports] = [await freePorts(), await freePorts()];
  const layout = services.map((entry) => ({ name: entry.name, replicas: singletons.has(entry.name) ? 1 : 2 }));

  // Every service finds every other through the list of its replicas.
  const addresses: Record<string, string> = {};
  for (const entry of services) {
    const replicas = singletons.has(entry.name) ? [replicaPorts[0]] : replicaPorts;
    if (entry.ports.grpc !== undefined) addresses[`${constantCase(entry.name)}_ADDR`] = `ipv4:${replicas.map((ports) => `127.0.0.1:${ports[entry.name]!.grpc}`).join(',')}`;
    if (entry.url) {
      // The simulator plays every upstream (the SM-DP+ and the connectivity provider, #25): each name points at it.
      for (const variable of [entry.url.variable, ...(entry.url.aliases ?? [])]) addresses[variable] = `http://127.0.0.1:${replicaPorts[0][entry.name]![entry.url.port]}`;
    }
    // The outside world's callbacks (the SM-DP+'s HandleDownloadProgressInfo, the provider's notifications) reach replica A.
    if (entry.callback && replicaPorts[0][entry.name]?.[entry.callback.port] !== undefined) {
      addresses[entry.callback.variable] = `http://127.0.0.1:${replicaPorts[0][entry.name]![entry.callback.port]}${entry.callback.path}`;
    }
  }
  const env: NodeJS.ProcessEnv & { DATABASE_URL: string; REDIS_URL: string; NATS_URL: string } = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    // Nothing listens there: with REDIS_CLUSTER_NODES set, REDIS_URL must not be used at all.
    REDIS_URL: 'redis://127.0.0.1:1',
    REDIS_CLUSTER_NODES: redis.seedNodes,
    NATS_URL: nats.url,
    NATS_STREAM_REPLICAS: '3',
    PLATFORM_NAMESPACE: namespace,
    OTEL_SDK_DISABLED: 'true',
    ...addresses,
    ...extraEnv,
  };
  await preflight(env);

  // Each service's gRPC identity (mutual TLS), issued once before any starts; only the benchmark's
  // NODE_ENV=production needs them named (a test-mode service finds the development PKI itself).
  const identities = new Map(services.map((entry) => [entry.name, grpcIdentityEnv(entry.name, env)]));
  const processes = new Map<string, Running>();
  const spec = (name: string, replica: number) => {
    const entry = services.find((candidate) => candidate.name === name)!;
    const own = replicaPorts[replica]![name]!;
    return { name, env: portEnv(own), readyUrl: `http://127.0.0.1:${readinessPort(entry, own)}/readyz` };
  };
  const launch = async (name: string, replica: number) => {
    // Production's provisioning sells only from a real SM-DP+ over mutual TLS (#25); against the simulator it runs as development.
    const own = name === 'provisioning' && env.NODE_ENV === 'production' ? { NODE_ENV: 'development' } : {};
    const running = startService(spec(name, replica), { ...env, ...identities.get(name), ...own }, join(logDir, `replica-${'ab'[replica]}`), () => {}, options.mode);
    processes.set(`${name}#${replica}`, running);
    // Generous: fifteen processes compiling their sources at once on two shared cores.
    await waitUntilReady(running, 600_000);
  };
  const stop = async () => {
    for (const running of [...processes.values()].reverse()) await stopService(running, 5_000);
    await Promise.all([nats.stop(), redis.stop()]);
  };

  try {
    // Replica A of every back end (their migrations serialise on an advisory lock), then replica B
    // (from tsx's warm cache), then both gateways.
    const backends = layout.filter((s) => s.name !== 'gateway');
    await Promise.all(backends.map((s) => launch(s.name, 0)));
    await Promise.all(backends.filter((s) => s.replicas > 1).map((s) => launch(s.name, 1)));
    await Promise.all([launch('gateway', 0), launch('gateway', 1)]);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    nats,
    redis,
    namespace,
    databaseUrl,
    env,
    logDir,
    replicaPorts,
    processes,
    layout,
    async restartReplica(replica) {
      const restartOne = async (name: string) => {
        const startedAt = Date.now();
        await stopService(processes.get(`${name}#${replica}`)!, 15_000);
        const downAt = Date.now();
        await launch(name, replica);
        return [name, { downMs: downAt - startedAt, readyMs: Date.now() - startedAt }] as const;
      };
      return Object.fromEntries(await Promise.all(layout.filter((s) => s.replicas > replica && !singletons.has(s.name)).map((s) => restartOne(s.name))));
    },
    async allReady() {
      const answers = await Promise.all(
        [...processes.values()].map((running) =>
          fetch(running.spec.readyUrl, { signal: AbortSignal.timeout(2_000) }).then(
            (response) => response.status === 200,
            () => false,
          ),
        ),
      );
      return answers.every(Boolean);
    },
    stop,
  };
}
