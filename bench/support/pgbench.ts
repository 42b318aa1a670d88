import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * TPC-B (pgbench's default script) on a scratch database of the same server:
 * the anchor an order's throughput is compared with, since an order is a few
 * transactions in three schemas and Postgres is the natural ceiling.
 */
export function pgbenchTps(clients: number, durationS: number): number {
  const database = `esim_bench_pgbench_${randomBytes(3).toString('hex')}`;
  const connection = ['-h', '127.0.0.1', '-U', 'postgres'];
  execFileSync('createdb', [...connection, database]);
  try {
    execFileSync('pgbench', [...connection, '-i', '-q', '-s', '10', database], { stdio: 'ignore' });
    const out = execFileSync('pgbench', [...connection, '-c', String(clients), '-j', '2', '-T', String(durationS), database], { encoding: 'utf8' });
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1] ?? /tps = ([\d.]+)/.exec(out)?.[1];
    if (!tps) throw new Error(`could not read pgbench's tps from:\n${out}`);
    return Number(tps);
  } finally {
    execFileSync('dropdb', [...connection, '--force', database]);
  }
}
