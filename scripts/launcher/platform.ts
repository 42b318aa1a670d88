import { join } from 'node:path';
import { devTlsFiles } from '@esim/grpc';
import { openCpuBudget, type CpuBudget } from './cpuBudget.js';
import { followSpareCpu, sparePolicy, type SpareFollower } from './spareCpu.js';
import { claimNamespace } from './instance.js';
import { claimPorts, freePortOutside, portIsFree } from './ports.js';
import { preflight } from './preflight.js';
import { services as serviceList, serviceSpecs, testModeServices, testReplicaName, type PortKind, type Ports, type ServiceSpec, type TestModeReplicas } from './services.js';
import { repoRoot, startService, stopService, waitUntilReady, type LaunchMode, type Running } from './supervisor.js';

export interface PlatformOptions {
  env: NodeJS.ProcessEnv & { DATABASE_URL: string; REDIS_URL: string; NATS_URL: string };
  ports: Ports;
  logDir?: string;
  echo?: (line: string) => void;
  readyTimeoutMs?: number;
  /** Sources through tsx (default) or the compiled dist/ (the benchmarks). */
  mode?: LaunchMode;
  /**
   * A service that exits after it was ready, not stopped by `kill` or `stop`.
   * `npm start` stops the whole platform loudly; the default only reports it.
   */
  onUnexpectedExit?: (name: string, code: number | null) => void;
  /**
   * Called once the ports are chosen, before any service starts (tests take a
   * port here to play the process that binds it between check and bind).
   */
  beforeLaunch?: (ports: Ports) => Promise<void> | void;
  /** Settings of one service only, over `env` (the benchmarks run provisioning against the simulator, which production refuses). */
  serviceEnv?: Record<string, Record<string, string>>;
  /** Test mode's own replicas (services.ts `testModeServices`), at a lower priority and within their CPU budget; off unless asked for. */
  testModeReplicas?: TestModeReplicas;
}

export interface Platform {
  /** The ports in use: the ones asked for, except internal ones another process held (moved to free ones). */
  ports: Ports;
  logDir: string;
  services: Map<string, Running>;
  /** Stops one service abruptly (SIGKILL) or gracefully (SIGTERM). */
  kill(name: string, signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts a stopped service again and waits until it is ready. */
  start(name: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Each service's gRPC identity (mutual TLS): the development PKI under
 * var/pki, issued here once before any service starts (so they do not race
 * to create the CA), unless the environment names the files itself. The
 * launcher never runs production, but the benchmarks run with
 * NODE_ENV=production, where services have no default of their own.
 */
export function grpcIdentityEnv(name: string, env: NodeJS.ProcessEnv): Record<string, string> {
  if (env.GRPC_TLS_CA || env.GRPC_TLS_CERT || env.GRPC_TLS_KEY) return {};
  const files = devTlsFiles(name);
  return { GRPC_TLS_CA: files.ca, GRPC_TLS_CERT: files.cert, GRPC_TLS_KEY: files.key };
}

/**
 * Checks dependencies, starts every service as its own process, and resolves
 * once each one reports ready. `npm start` and the end-to-end suite both use it.
 */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const namespace = options.env.PLATFORM_NAMESPACE ?? 'esim';
  const echo = options.echo ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Public ports were chosen by whoever started us; internal ones only need to be free.
  const publicPorts = new Map(serviceList.map((entry) => [entry.name, new Set(entry.public ?? [])]));
  // The ES2+ listener is fixed only when the operator chose it (ES2_NOTIFY_PORT, registered with their SM-DP+);
  // otherwise only the simulator dials it, through the URL it is handed, so a second copy may move it.
  const fixed = (service: string, kind: PortKind) => publicPorts.get(service)?.has(kind) === true && (kind !== 'es2' || options.env.ES2_NOTIFY_PORT !== undefined);
  const { ports, moved } = await claimPorts(options.ports, (service, kind) => !fixed(service, kind));
  if (moved.length > 0) echo(`Internal ports in use by another process; using free ones instead: ${moved.join(', ')}`);
  if (options.testModeReplicas) {
    // Internal ports only: nothing outside the platform dials a test-mode replica.
    const inUse = new Set(Object.values(ports).flatMap((own) => Object.values(own)));
    for (const service of testModeServices) {
      const own: Partial<Record<PortKind, number>> = {};
      for (const kind of Object.keys(ports[service] ?? {}) as PortKind[]) own[kind] = await freePortOutside(inUse);
      ports[testReplicaName(service)] = own;
    }
  }
  const identities = new Map(serviceList.map((entry) => [entry.name, grpcIdentityEnv(entry.name, options.env)]));
  const release = await claimNamespace(namespace, ports);
  try {
    await preflight(options.env);
  } catch (error) {
    release();
    throw error;
  }
  const logDir = options.logDir ?? join(repoRoot, 'var', 'log');
  let specs = new Map<string, ServiceSpec>();
  const specify = () => {
    // A test-mode replica is its service: the same gRPC identity and settings.
    specs = new Map(
      serviceSpecs(ports, options.env, options.testModeReplicas).map((spec) => {
        const service = spec.service ?? spec.name;
        return [spec.name, { ...spec, env: { ...spec.env, ...identities.get(service), ...options.serviceEnv?.[service] } }];
      }),
    );
  };
  specify();
  const services = new Map<string, Running>();
  let budget: CpuBudget | undefined;
  let spare: SpareFollower | undefined;
  if (options.testModeReplicas?.cpu) {
    const opened = openCpuBudget(options.testModeReplicas.cpu);
    if ('budget' in opened) {
      budget = opened.budget;
      if (options.testModeReplicas.adaptive) spare = followSpareCpu(budget, sparePolicy(options.testModeReplicas.cpu));
    } else echo(`Test mode's replicas run without their CPU budget of ${options.testModeReplicas.cpu} cores (${opened.unavailable}); only their lower priority keeps them from live work.`);
  }
  const timeoutMs = options.readyTimeoutMs ?? 90_000;
  // Processes the launcher itself stopped: their exit is expected.
  const stopping = new Set<Running>();
  const onUnexpectedExit =
    options.onUnexpectedExit ?? ((name: string, code: number | null) => echo(`${name} exited unexpectedly (code ${code}); see ${join(logDir, `${name}.log`)}`));

  // A service that dies while the others are still starting fails the start (once they are up); after it, onUnexpectedExit.
  let starting = true;
  let diedWhileStarting: string | undefined;
  const launch = async (name: string) => {
    const running = startService(specs.get(name)!, options.env, logDir, echo, options.mode);
    services.set(name, running);
    await waitUntilReady(running, timeoutMs);
    if (budget && running.spec.budgeted && running.child.pid !== undefined) {
      try {
        budget.join(running.child.pid);
      } catch (error) {
        echo(`[${name}] could not join test mode's CPU budget: ${(error as Error).message}`);
      }
    }
    void running.exited.then((code) => {
      if (stopping.has(running)) return;
      if (starting) diedWhileStarting ??= `${name} exited with code ${code} after it was ready; see ${join(logDir, `${name}.log`)}`;
      else onUnexpectedExit(name, code);
    });
  };

  const stopServices = async () => {
    // Front door first, so no request arrives at a service that is going away.
    for (const name of [...services.keys()].reverse()) {
      const running = services.get(name)!;
      stopping.add(running);
      await stopService(running);
    }
  };
  const stop = async () => {
    await stopServices();
    spare?.stop();
    budget?.close();
    release();
  };

  /**
   * Internal ports another process bound between the check and the service's
   * own bind (the service died starting, its port now held or its error an
   * EADDRINUSE): moved to free ones. Every service finds the others by port,
   * so the caller restarts them all on the new ones.
   */
  const movePortsLost = async (): Promise<string[]> => {
    const movedNow: string[] = [];
    const inUse = new Set(Object.values(ports).flatMap((own) => Object.values(own)));
    for (const [name, running] of services) {
      if (running.child.exitCode === null && running.child.signalCode === null) continue;
      const addressInUse = /EADDRINUSE|address already in use/i.test(running.lastError() ?? '');
      for (const [kind, port] of Object.entries(ports[name] ?? {}) as Array<[PortKind, number]>) {
        if (publicPorts.get(name)?.has(kind)) continue;
        if (!addressInUse && (await portIsFree(port))) continue;
        if (addressInUse && !(running.lastError() ?? '').includes(`:${port}`) && (await portIsFree(port))) continue;
        const chosen = await freePortOutside(inUse);
        ports[name] = { ...ports[name], [kind]: chosen };
        movedNow.push(`${name} ${kind} ${port} → ${chosen}`);
      }
    }
    return movedNow;
  };

  await options.beforeLaunch?.(ports);
  for (let attempt = 1; ; attempt++) {
    try {
      // Back-end services start together; the edge (the gateway) once they are ready.
      const last = new Set(serviceList.filter((entry) => entry.last).map((entry) => entry.name));
      await Promise.all([...specs.keys()].filter((name) => !last.has(name)).map((name) => launch(name)));
      for (const name of last) await launch(name);
      if (diedWhileStarting) throw new Error(diedWhileStarting);
      starting = false;
      break;
    } catch (error) {
      // Let every service of this attempt settle (ready or dead) before judging which port was lost.
      await Promise.allSettled([...services.values()].map((running) => Promise.race([running.exited, new Promise((r) => setTimeout(r, 2_000))])));
      const movedNow = attempt < 4 ? await movePortsLost() : [];
      await stopServices();
      if (movedNow.length === 0) {
        spare?.stop();
        budget?.close();
        release();
        throw error;
      }
      echo(`A port was taken by another process while the platform started; starting again on free ones: ${movedNow.join(', ')}`);
      services.clear();
      diedWhileStarting = undefined;
      specify();
      await claimNamespace(namespace, ports);
    }
  }

  return {
    ports,
    logDir,
    services,
    kill: async (name, signal) => {
      const running = services.get(name);
      if (!running) return;
      stopping.add(running);
      running.child.kill(signal);
      await running.exited;
    },
    start: launch,
    stop,
  };
}
