import pg from 'pg';

/**
 * The machine's own floor under every latency the benchmarks time: one
 * single-row INSERT committed every `everyMs` on an idle server, each commit
 * waiting for its WAL to reach the disk. On the 2-vCPU VMs we measure on,
 * the disk answers most flushes in about a millisecond and stalls some for
 * a hundred or more, idle or not; a live order commits several times, so
 * such a stall shows in its p99 whatever else runs.
 */
export async function commitLatency(databaseUrl: string, seconds: number, everyMs = 20): Promise<{ commits: number; p50: number; p99: number; max: number; over50ms: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A permanent table: a temporary one writes no WAL, and the probe times the WAL's flush.
    await client.query('CREATE TABLE IF NOT EXISTS bench_commit_probe (at timestamptz)');
    const latencies: number[] = [];
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      const startedAt = performance.now();
      await client.query('INSERT INTO bench_commit_probe VALUES (now())');
      latencies.push(performance.now() - startedAt);
      await new Promise((r) => setTimeout(r, everyMs));
    }
    await client.query('DROP TABLE bench_commit_probe');
    latencies.sort((a, b) => a - b);
    const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    return { commits: latencies.length, p50: at(0.5), p99: at(0.99), max: latencies.at(-1) ?? 0, over50ms: latencies.filter((l) => l > 50).length };
  } finally {
    await client.end();
  }
}
