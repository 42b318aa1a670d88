import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortsWithOffset } from './clusters/processes.js';

/**
 * A Postgres server of a test's own (initdb into a temporary directory, on a
 * free port), so a fault test can restart or stop the database under load
 * without touching the machine's server that every other suite shares. The
 * binaries are the machine's own (Debian's /usr/lib/postgresql/<major>/bin);
 * as root, the server runs as the `postgres` user, since Postgres refuses to
 * run as root.
 */
export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** `pg_ctl restart -m fast`: every session is terminated, then the server accepts again. */
  restart(): void;
  /** `pg_ctl stop -m fast`; `start()` brings it back. */
  stop(): void;
  start(): void;
  /** Stops the server and removes its directory. */
  remove(): void;
}

/** Where initdb and pg_ctl are, or why there are none (the caller skips with that line). */
export function postgresBinaries(): { dir: string } | { missing: string } {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))) : [];
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) return { missing: 'no initdb under /usr/lib/postgresql/*/bin: install the postgresql package (apt-get install postgresql) to run this fault test' };
  return { dir: join(root, newest, 'bin') };
}

export async function startPrivatePostgres(options: { maxConnections?: number } = {}): Promise<PrivatePostgres> {
  const binaries = postgresBinaries();
  if ('missing' in binaries) throw new Error(binaries.missing);
  const asRoot = process.getuid?.() === 0;
  const dataDir = mkdtempSync(join(tmpdir(), 'esim-pg-'));
  // The postgres user must own the directory it writes into.
  if (asRoot) {
    chmodSync(dataDir, 0o700);
    execFileSync('chown', ['postgres:postgres', dataDir]);
  }
  const run = (tool: string, args: string[]) => {
    const command = join(binaries.dir, tool);
    const result = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' }) : spawnSync(command, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
  };
  run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const [port] = (await freePortsWithOffset(1)) as [number];
  const settings = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c max_connections=${options.maxConnections ?? 200} -c fsync=off`;
  const log = join(dataDir, 'server.log');
  const start = () => run('pg_ctl', ['-D', dataDir, '-o', settings, '-l', log, '-w', '-t', '60', 'start']);
  start();
  let removed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: () => run('pg_ctl', ['-D', dataDir, '-o', settings, '-l', log, '-m', 'fast', '-w', '-t', '60', 'restart']),
    stop: () => run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']),
    start,
    remove() {
      if (removed) return;
      removed = true;
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop']);
      } catch {
        // Already stopped.
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
