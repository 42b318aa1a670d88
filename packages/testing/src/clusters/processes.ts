import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * What the cluster harnesses share: finding a binary, loopback ports that are
 * free (with a partner port at a fixed offset, as a Redis Cluster bus needs),
 * and one server process that can be SIGKILLed and started again.
 */

/** The first of `candidates` that exists, or an error saying what to install. */
/** The binaries the clusters run, where Debian puts them, the variable that overrides that, and the package that brings them. */
export const clusterBinaries = {
  'nats-server': { variable: 'NATS_SERVER_BIN', candidates: ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'], debianPackage: 'nats-server' },
  'redis-server': { variable: 'REDIS_SERVER_BIN', candidates: ['/usr/bin/redis-server', '/usr/local/bin/redis-server'], debianPackage: 'redis-server' },
  'redis-cli': { variable: 'REDIS_CLI_BIN', candidates: ['/usr/bin/redis-cli', '/usr/local/bin/redis-cli'], debianPackage: 'redis-tools' },
} as const;
type ClusterBinary = keyof typeof clusterBinaries;

function locate(name: ClusterBinary): string | undefined {
  const { variable, candidates } = clusterBinaries[name];
  return process.env[variable] ?? candidates.find((path) => existsSync(path));
}

export function findBinary(name: ClusterBinary): string {
  const found = locate(name);
  if (!found) throw new Error(`${name} not found (looked in ${clusterBinaries[name].candidates.join(', ')}); install it (apt-get install ${clusterBinaries[name].debianPackage}) or set ${clusterBinaries[name].variable}`);
  return found;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const taken = new Set<number>();

/** Below the kernel's ephemeral range, where no outgoing connection takes a port between its choice and its bind. */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * `count` free loopback ports, each with `port + offset` free too when an
 * offset is given (a Redis Cluster node's bus port is its port + 10000).
 * Random from 10000 up to the kernel's ephemeral range, so parallel runs
 * rarely collide and no client connection takes one before its server
 * binds it; never the same port twice within this process.
 */
export async function freePortsWithOffset(count: number, offset = 0): Promise<number[]> {
  const ports: number[] = [];
  for (let attempt = 0; ports.length < count; attempt += 1) {
    if (attempt > 10_000) throw new Error('no free loopback ports found');
    const port = 10_000 + Math.floor(Math.random() * (ephemeralLow() - offset - 10_000));
    if (taken.has(port) || (offset && taken.has(port + offset))) continue;
    if (!(await portFree(port)) || (offset && !(await portFree(port + offset)))) continue;
    taken.add(port);
    if (offset) taken.add(port + offset);
    ports.push(port);
  }
  return ports;
}

/** One server process of a cluster: started, SIGKILLed, started again with the same arguments. */
export class ServerProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly binary: string,
    readonly args: string[],
    readonly cwd: string,
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.running ? this.child!.pid : undefined;
  }

  start(): void {
    if (this.running) throw new Error(`${this.binary} is already running (pid ${this.child!.pid})`);
    const child = spawn(this.binary, this.args, { cwd: this.cwd, stdio: 'ignore' });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    stopOnExit.add(child);
    void this.exited.then(() => stopOnExit.delete(child));
  }

  /** SIGKILL (a crash) or SIGTERM (a clean stop); resolves once the process is gone. */
  async stop(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<void> {
    if (!this.running) return;
    this.child!.kill(signal);
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

// A test run that dies must not leave servers behind on the machine.
const stopOnExit = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of stopOnExit) child.kill('SIGKILL');
});

/** Polls `check` every 100 ms until it returns true; throws naming `what` after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
}

/** One line naming what to install when a cluster's binaries are not on this machine, else undefined (scripts/test.ts asks first). */
export function clusterBinariesMissing(): string | undefined {
  const missing = (Object.keys(clusterBinaries) as ClusterBinary[]).filter((name) => !locate(name));
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map((name) => clusterBinaries[name].debianPackage))].join(' ');
  return `the cluster suite needs ${missing.join(', ')}: run apt-get install -y ${packages} (or set ${missing.map((name) => clusterBinaries[name].variable).join('/')}), or leave the suite out with CLUSTER_SUITE=0 npm test`;
}
