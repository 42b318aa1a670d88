/**
 * One platform per namespace on a machine. The launcher records its pid and
 * every service's ports in var/<namespace>/ports.json while it runs (tests and
 * tools read the ports there); a second launcher for a namespace that is
 * still running refuses with one line instead of sharing its streams.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ports } from './services.js';
import { repoRoot } from './supervisor.js';

export interface InstanceFile {
  pid: number;
  namespace: string;
  startedAt: string;
  ports: Ports;
}

export const instanceFile = (namespace: string) => join(repoRoot, 'var', namespace, 'ports.json');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running instance of `namespace`, if its launcher is alive. */
export function runningInstance(namespace: string): InstanceFile | undefined {
  try {
    const recorded = JSON.parse(readFileSync(instanceFile(namespace), 'utf8')) as InstanceFile;
    return recorded.pid !== process.pid && alive(recorded.pid) ? recorded : undefined;
  } catch {
    return undefined;
  }
}

/** Throws (one line) when `namespace` already runs here; else records this launcher and its ports. Returns the release. */
export function claimNamespace(namespace: string, ports: Ports): () => void {
  const other = runningInstance(namespace);
  if (other) {
    throw new Error(
      `Platform namespace "${namespace}" is already running on this machine (launcher pid ${other.pid}, ports in ${instanceFile(namespace)}); ` +
        'give the second copy its own PLATFORM_NAMESPACE, DATABASE_URL, PORT and ADMIN_PORT.',
    );
  }
  const file = instanceFile(namespace);
  mkdirSync(join(file, '..'), { recursive: true });
  const record: InstanceFile = { pid: process.pid, namespace, startedAt: new Date().toISOString(), ports };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return () => {
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as InstanceFile;
      if (current.pid === process.pid) rmSync(file);
    } catch {
      // already gone
    }
  };
}
