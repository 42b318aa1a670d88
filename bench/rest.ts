/**
 * The platform at rest, alone (`npm run bench -- --only rest`): the
 * at-rest half of bench/cost.ts without the orders before it, so that the
 * issue's target (≤ 0.05 of a core in all, over a minute) can be checked in
 * about five minutes. One partner is onboarded first (pools, JIT and the
 * partner paths past their first use), then the platform is left alone:
 * `settleS` seconds (BENCH_REST_SETTLE_S, 60 by default) not measured, then
 * BENCH_REST_WINDOWS (3) consecutive windows of `idleS` seconds
 * (BENCH_IDLE_S, 60 by default) while every service's, NATS's and the
 * platform database's Postgres backends' CPU is read from /proc. NATS is
 * the one server of the machine: with other platforms on it, its figure
 * is an upper bound of this platform's share. The settling is there because
 * each Node process spends a one-off ~0.2 s of CPU in V8's post-boot garbage
 * collections (the memory reducer shrinking the heap the boot grew) in its
 * first minutes of quiet, later on a loaded machine: what a long-running
 * replica costs at rest is the windows after that.
 *
 *   BENCH_REST_PROFILE=1   every service also records a V8 CPU profile of
 *                          the first window (support/cpuProfiler.mjs); the
 *                          functions with the most self time are printed
 *                          per service and the .cpuprofile files kept (open
 *                          them in Chrome's DevTools) to see what still
 *                          wakes a process. The CPU figures of that window
 *                          then include the profiler's own sampling.
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { repoRoot } from '../scripts/launcher/supervisor.js';
import { cpuByProcess, natsPid } from './cost.js';
import { buildCompiled, log, startBenchPlatform, writeSection } from './support/benchPlatform.js';
import { dbCounters, diffCounters } from './support/pgCounters.js';

const reportFile = join(repoRoot, 'docs', 'benchmarks.md');

export interface RestOptions {
  idleS?: number;
  settleS?: number;
  /** How many consecutive windows (BENCH_REST_WINDOWS, 3 by default): the post-boot collections may still fall in the first. */
  windows?: number;
  mode?: 'compiled' | 'sources';
  report?: boolean;
  profile?: boolean;
}

export interface RestResult {
  seconds: number;
  settleS: number;
  /** Consecutive windows of `seconds` each, every process measured over the same one. */
  windows: Array<{ coresByProcess: Record<string, number>; xactPerS: number }>;
}

export async function restBenchmark(options: RestOptions = {}): Promise<RestResult> {
  const idleS = options.idleS ?? Number(process.env.BENCH_IDLE_S ?? 60);
  const settleS = options.settleS ?? Number(process.env.BENCH_REST_SETTLE_S ?? 60);
  const windowCount = options.windows ?? Number(process.env.BENCH_REST_WINDOWS ?? 3);
  const mode = options.mode ?? 'compiled';
  const profile = options.profile ?? process.env.BENCH_REST_PROFILE === '1';
  if (mode === 'compiled' && !process.env.BENCH_NO_BUILD) buildCompiled();
  const profileDir = profile ? await mkdtemp(join(tmpdir(), 'esim-rest-profile-')) : undefined;
  const extraEnv: Record<string, string> = {};
  if (profileDir) {
    extraEnv.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${join(repoRoot, 'bench', 'support', 'cpuProfiler.mjs')}`.trim();
    extraEnv.CPU_PROFILE_DIR = profileDir;
  }
  const bench = await startBenchPlatform(extraEnv, { mode });
  const signalProfilers = () => profileDir && Object.values(bench.pids()).forEach((pid) => process.kill(pid, 'SIGUSR2'));
  const database = new URL(bench.databaseUrl).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: bench.databaseUrl, max: 1 });
  const nats = natsPid();
  const backends = new Map<number, number>();
  let failed = false;
  let result: RestResult;
  const windows: RestResult['windows'] = [];
  try {
    await bench.onboard();
    log(`rest: settling for ${settleS}s`);
    await new Promise((r) => setTimeout(r, settleS * 1000));
    for (let n = 1; n <= windowCount; n++) {
      log(`rest: the platform at rest for ${idleS}s (${n}/${windowCount})`);
      if (n === 1) signalProfilers();
      const cpu0 = await cpuByProcess(pool, database, bench.pids(), nats, backends);
      const db0 = await dbCounters(pool, database);
      await new Promise((r) => setTimeout(r, idleS * 1000));
      const db1 = await dbCounters(pool, database);
      const cpu1 = await cpuByProcess(pool, database, bench.pids(), nats, backends);
      if (n === 1) signalProfilers();
      windows.push({
        coresByProcess: Object.fromEntries(Object.keys(cpu1).map((k) => [k, (cpu1[k]! - (cpu0[k] ?? 0)) / (idleS * 1000)])),
        xactPerS: diffCounters(db1, db0).xacts / idleS,
      });
    }
    if (profileDir) await new Promise((r) => setTimeout(r, 2_000));
    result = { seconds: idleS, settleS, windows };
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await pool.end();
    await bench.stop(failed);
  }
  const text = formatRest(result);
  process.stdout.write(`\n${text}\n`);
  if (profileDir) process.stdout.write(`\n${await summariseProfiles(profileDir)}\nprofiles kept in ${profileDir}\n`);
  if (options.report) await writeSection(reportFile, 'rest', `Measured ${new Date().toISOString()}, Node ${process.version}, ${mode}, on a machine shared with other workloads.\n\n${text}`);
  return result;
}

export function formatRest(r: RestResult): string {
  const last = r.windows.at(-1)!.coresByProcess;
  const names = Object.keys(last).sort((a, b) => last[b]! - last[a]!);
  const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
  return [
    `| at rest, cores (${r.seconds} s windows after ${r.settleS} s of quiet) | ${names.join(' | ')} | all | Postgres transactions/s |`,
    `|---|${names.map(() => '---:').join('|')}|---:|---:|`,
    ...r.windows.map(
      (w, i) => `| window ${i + 1} | ${names.map((n) => (w.coresByProcess[n] ?? 0).toFixed(4)).join(' | ')} | ${sum(w.coresByProcess).toFixed(3)} | ${w.xactPerS.toFixed(1)} |`,
    ),
  ].join('\n');
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** Self time by function in each .cpuprofile (each holds the first window only). */
async function summariseProfiles(dir: string): Promise<string> {
  const lines: string[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as { nodes: ProfileNode[]; samples: number[] };
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const hits = new Map<string, number>();
    let total = 0;
    profile.samples.forEach((id) => {
      const frame = byId.get(id)!.callFrame;
      const name = frame.functionName || '(anonymous)';
      if (name === '(idle)') return;
      const key = `${name} ${frame.url.replace(/^.*node_modules\//, '').replace(repoRoot, '')}:${frame.lineNumber + 1}`;
      hits.set(key, (hits.get(key) ?? 0) + 1);
      total += 1;
    });
    const top = [...hits].sort((a, b) => b[1] - a[1]).slice(0, 8);
    lines.push(`${file}: ${total} busy samples (1 ms each) in the first window`, ...top.map(([k, v]) => `  ${v}\t${k}`));
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) await restBenchmark({ mode: process.argv.includes('--sources') ? 'sources' : 'compiled', report: !process.argv.includes('--no-report') });
