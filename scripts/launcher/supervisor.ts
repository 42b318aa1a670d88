import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceSpec } from './services.js';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export interface Running {
  spec: ServiceSpec;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** The BOOT_ID this process was given; its /readyz must report it (and the namespace). */
  bootId: string;
  namespace: string;
  /** The last error the process printed (its boot failure, when it died starting). */
  lastError(): string | undefined;
}

/**
 * How a service's code is run: its TypeScript sources through tsx (`npm
 * start`, the tests), or the JavaScript `npm run build` compiled into dist/
 * (what the image runs; the benchmarks use it).
 */
export type LaunchMode = 'sources' | 'compiled';
export const launchArgs: Record<LaunchMode, readonly string[]> = {
  sources: ['--conditions=development', '--import', 'tsx', '--import', '@esim/telemetry/register', 'src/main.ts'],
  compiled: ['--import', '@esim/telemetry/register', 'dist/main.js'],
};

/**
 * Starts one service as its own process, exactly as it runs in production:
 * telemetry preloaded, configuration from the environment. Its JSON log goes
 * to `<logDir>/<name>.log`; warnings and errors are echoed with its name.
 */
export function startService(spec: ServiceSpec, env: NodeJS.ProcessEnv, logDir: string, echo: (line: string) => void, mode: LaunchMode = 'sources'): Running {
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(join(logDir, `${spec.name}.log`), { flags: 'a' });
  const bootId = randomUUID();
  const service = spec.service ?? spec.name;
  const child = spawn(process.execPath, [...launchArgs[mode]], {
    cwd: join(repoRoot, 'services', service),
    env: { ...env, ...spec.env, OTEL_SERVICE_NAME: service, BOOT_ID: bootId },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (spec.nice !== undefined && child.pid !== undefined) {
    try {
      setPriority(child.pid, spec.nice);
    } catch (error) {
      echo(`[${spec.name}] could not lower its priority: ${(error as Error).message}`);
    }
  }
  let pending = '';
  let lastError: string | undefined;
  const onData = (chunk: Buffer) => {
    log.write(chunk);
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const level = /"level":(\d+)/.exec(line)?.[1];
      if (!level || Number(level) >= 40) echo(`[${spec.name}] ${line}`);
      if (line.trim() && (!level || Number(level) >= 50)) lastError = errorText(line);
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (log.end(), resolve(code))));
  return { spec, child, exited, bootId, namespace: env.PLATFORM_NAMESPACE ?? 'esim', lastError: () => lastError };
}

/** A JSON log line's message and error, or the raw line (a ConfigError is printed as text). */
function errorText(line: string): string {
  try {
    const parsed = JSON.parse(line) as { msg?: string; err?: { message?: string } };
    return [parsed.msg, parsed.err?.message].filter(Boolean).join(': ') || line;
  } catch {
    return line.slice(0, 500);
  }
}

/**
 * Polls the service's readiness URL until it answers 200 with this
 * platform's namespace and the boot id the process was given (headers
 * X-Platform-Namespace and X-Boot-Id): a 200 from
 * anyone else (a process of another copy holding the port) is not readiness.
 * Fails naming the service, and its boot error when it died starting.
 */
export async function waitUntilReady(running: Running, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  let stranger: string | undefined;
  void running.exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      const why = running.lastError();
      throw new Error(`${running.spec.name} exited with code ${exitCode} while starting${why ? `: ${why}` : '; see its log.'}`);
    }
    try {
      const response = await fetch(running.spec.readyUrl, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      const namespace = response.headers.get('x-platform-namespace');
      const bootId = response.headers.get('x-boot-id');
      if (response.status === 200 && bootId === running.bootId && namespace === running.namespace) return;
      if (response.status === 200) stranger = `namespace ${namespace ?? '?'}, boot id ${bootId ?? '?'}`;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const answered = stranger ? `; ${running.spec.readyUrl} was answered by another process (${stranger})` : ` (${running.spec.readyUrl})`;
  throw new Error(`${running.spec.name} was not ready within ${timeoutMs / 1000}s${answered}.`);
}

/** SIGTERM, then SIGKILL after the grace period. */
export async function stopService(running: Running, graceMs = 15_000): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), graceMs);
  await running.exited;
  clearTimeout(timer);
}
