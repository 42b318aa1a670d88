import { join } from 'node:path';
import { preflight } from './preflight.js';
import { services as serviceList, serviceSpecs, type Ports } from './services.js';
import { repoRoot, startService, stopService, waitUntilReady, type LaunchMode, type Running } from './supervisor.js';

export interface PlatformOptions {
  env: NodeJS.ProcessEnv & { DATABASE_URL: string; REDIS_URL: string; NATS_URL: string };
  ports: Ports;
  logDir?: string;
  echo?: (line: string) => void;
  readyTimeoutMs?: number;
  /** Sources through tsx (default) or the compiled dist/ (the benchmarks). */
  mode?: LaunchMode;
}

export interface Platform {
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
 * Checks dependencies, starts every service as its own process, and resolves
 * once each one reports ready. `npm start` and the end-to-end suite both use it.
 */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  await preflight(options.env);
  const logDir = options.logDir ?? join(repoRoot, 'var', 'log');
  const echo = options.echo ?? ((line: string) => process.stderr.write(`${line}\n`));
  const specs = new Map(serviceSpecs(options.ports).map((spec) => [spec.name, spec]));
  const services = new Map<string, Running>();
  const timeoutMs = options.readyTimeoutMs ?? 90_000;

  const launch = async (name: string) => {
    const running = startService(specs.get(name)!, options.env, logDir, echo, options.mode);
    services.set(name, running);
    await waitUntilReady(running, timeoutMs);
  };

  const stop = async () => {
    // Front door first, so no request arrives at a service that is going away.
    for (const name of [...services.keys()].reverse()) await stopService(services.get(name)!);
  };

  try {
    // Back-end services start together; the edge (the gateway) once they are ready.
    await Promise.all(serviceList.filter((entry) => !entry.last).map((entry) => launch(entry.name)));
    for (const entry of serviceList.filter((e) => e.last)) await launch(entry.name);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    ports: options.ports,
    logDir,
    services,
    kill: async (name, signal) => {
      const running = services.get(name);
      if (!running) return;
      running.child.kill(signal);
      await running.exited;
    },
    start: launch,
    stop,
  };
}
