/**
 * One platform per namespace on a machine. The launcher records its pid and
 * every service's ports in var/<namespace>/ports.json while it runs (tests and
 * tools read the ports there); a second launcher for a namespace that is
 * still running refuses with one line instead of sharing its streams.
 *
 * "Running" is a lock the kernel holds for the launcher and releases when it
 * dies, however it dies (SIGKILL, a power cut): a listening Unix socket, in
 * Linux's abstract namespace (`\0esim-launcher-<namespace>`, no file to go
 * stale) or, elsewhere, at var/<namespace>/launcher.sock (a file nobody
 * answers on is stale). A pid is never the test: a killed launcher its parent
 * has not reaped yet, or any process that got the same pid after a reboot,
 * is not a running platform (#23).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
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

const abstract = process.platform === 'linux';

/** The lock's name: at most 100 bytes (a Unix socket address holds 108), so a long namespace is hashed. */
function lockName(namespace: string): string {
  const name = `esim-launcher-${namespace}`;
  return Buffer.byteLength(name) <= 100 ? name : `esim-launcher-${createHash('sha256').update(namespace).digest('hex').slice(0, 40)}`;
}

/** Where the lock listens: an abstract address on Linux, a socket file elsewhere. */
export const lockAddress = (namespace: string) => (abstract ? `\0${lockName(namespace)}` : join(repoRoot, 'var', namespace, 'launcher.sock'));

/** Locks this process holds, by namespace (the same launcher may claim its namespace again). */
const held = new Map<string, Server>();

/** Whether some live process listens on the namespace's lock, read from the kernel's socket table (Linux) without connecting. */
function lockHeld(namespace: string): boolean {
  if (held.has(namespace)) return true;
  if (abstract) {
    let table = '';
    try {
      table = readFileSync('/proc/net/unix', 'utf8');
    } catch {
      return false;
    }
    // The path column shows an abstract address as @name, padded with @ for the NULs Node sends.
    const wanted = `@${lockName(namespace)}`;
    return table.split('\n').some((line) => {
      const path = line.trim().split(/\s+/)[7];
      return path !== undefined && path.startsWith(wanted) && /^@*$/.test(path.slice(wanted.length));
    });
  }
  return existsSync(lockAddress(namespace));
}

/** The running instance of `namespace`, if a live launcher holds its lock (another one than this process). */
export function runningInstance(namespace: string): InstanceFile | undefined {
  if (!lockHeld(namespace)) return undefined;
  try {
    const recorded = JSON.parse(readFileSync(instanceFile(namespace), 'utf8')) as InstanceFile;
    return recorded.pid !== process.pid ? recorded : undefined;
  } catch {
    return undefined;
  }
}

function listen(address: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.end());
    server.once('error', reject);
    server.listen(address, () => {
      server.off('error', reject);
      // The lock must not keep a process alive that is otherwise done (a test runner).
      server.unref();
      resolve(server);
    });
  });
}

/** True when something answers on the socket file (elsewhere than Linux: a file nobody answers on is a dead launcher's). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function takeLock(namespace: string): Promise<Server | undefined> {
  const address = lockAddress(namespace);
  if (!abstract) mkdirSync(join(address, '..'), { recursive: true });
  try {
    return await listen(address);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (abstract || (await answers(address))) return undefined;
    rmSync(address, { force: true });
    return listen(address);
  }
}

/**
 * Throws (one line) when `namespace` already runs here; else takes its lock
 * and records this launcher and its ports. Returns the release.
 */
export async function claimNamespace(namespace: string, ports: Ports): Promise<() => void> {
  let lock = held.get(namespace);
  const own = lock === undefined;
  if (!lock) {
    lock = await takeLock(namespace);
    if (!lock) {
      let pid = 'unknown';
      try {
        pid = String((JSON.parse(readFileSync(instanceFile(namespace), 'utf8')) as InstanceFile).pid);
      } catch {
        // recorded nothing yet
      }
      throw new Error(
        `Platform namespace "${namespace}" is already running on this machine (launcher pid ${pid}, ports in ${instanceFile(namespace)}); ` +
          'give the second copy its own PLATFORM_NAMESPACE, DATABASE_URL, PORT and ADMIN_PORT.',
      );
    }
    held.set(namespace, lock);
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
    // Only the claim that took the lock lets it go.
    if (own && held.get(namespace) === lock) {
      held.delete(namespace);
      lock!.close();
    }
  };
}
