import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceSpec } from './services.js';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export interface Running {
  spec: ServiceSpec;
  child: ChildProcess;
  exited: Promise<number | null>;
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
  const child = spawn(process.execPath, [...launchArgs[mode]], {
    cwd: join(repoRoot, 'services', spec.name),
    env: { ...env, ...spec.env, OTEL_SERVICE_NAME: spec.name },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let pending = '';
  const onData = (chunk: Buffer) => {
    log.write(chunk);
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const level = /"level":(\d+)/.exec(line)?.[1];
      if (!level || Number(level) >= 40) echo(`[${spec.name}] ${line}`);
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (log.end(), resolve(code))));
  return { spec, child, exited };
}

/** Polls the service's readiness URL until it answers 200, or fails naming the service. */
export async function waitUntilReady(running: Running, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void running.exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`${running.spec.name} exited with code ${exitCode} while starting; see its log.`);
    try {
      const response = await fetch(running.spec.readyUrl, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${running.spec.name} was not ready within ${timeoutMs / 1000}s (${running.spec.readyUrl}).`);
}

/** SIGTERM, then SIGKILL after the grace period. */
export async function stopService(running: Running, graceMs = 15_000): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), graceMs);
  await running.exited;
  clearTimeout(timer);
}
