/**
 * `npm test`: the unit project, then the end-to-end project (which boots the
 * real platform once), then the cluster project (the platform on a JetStream
 * cluster and a Redis Cluster, two replicas of everything), each with
 * vitest's normal output, then one closing line `tests: N passed, N failed,
 * N skipped` that CI and humans can read.
 * Failed hooks, files that fail to import and unhandled errors count as
 * failures there too (scripts/testSummary.ts). The browser tests' Chromium
 * is found or installed first (scripts/chromium.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureChromium, localHost } from './chromium.js';
import { clusterBinariesMissing } from '../packages/testing/src/clusters/processes.js';
import { repoRoot } from './launcher/supervisor.js';
import { summarize, summaryLine, type ProjectRun } from './testSummary.js';

const resultsDir = join(repoRoot, 'var', 'test-results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

// Before any project runs: a missing browser is one line now, not three failed files after the unit suite.
const chromium = ensureChromium(localHost(), join(repoRoot, 'var', 'log', 'chromium-install.log'));
if (!chromium.ok) {
  process.stderr.write(`${chromium.message}\n`);
  process.exit(1);
}
if (chromium.note) process.stdout.write(`${chromium.note}\n`);

// The cluster suite (3-node JetStream, 6-node Redis Cluster, two replicas of every service) runs last, about five
// minutes on two idle cores. CLUSTER_SUITE=0 leaves it out of a local run; CI always runs it.
const clusterSuite = process.env.CLUSTER_SUITE !== '0';
if (clusterSuite) {
  const missing = clusterBinariesMissing();
  if (missing) {
    process.stderr.write(`${missing}\n`);
    process.exit(1);
  }
}
const projects = clusterSuite ? ['unit', 'e2e', 'cluster'] : ['unit', 'e2e'];
if (!clusterSuite) process.stdout.write('cluster suite left out (CLUSTER_SUITE=0): run it with npx vitest run --project cluster\n');

const runs: ProjectRun[] = [];
for (const project of projects) {
  const outputFile = join(resultsDir, `${project}.json`);
  const run = spawnSync(
    process.execPath,
    [join(repoRoot, 'node_modules/vitest/vitest.mjs'), 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${outputFile}`],
    { cwd: repoRoot, stdio: 'inherit' },
  );
  runs.push({ project, report: existsSync(outputFile) ? readFileSync(outputFile, 'utf8') : undefined, exitStatus: run.status });
}
const summary = summarize(runs);
for (const reason of summary.reasons) process.stdout.write(`\n! ${reason}`);
process.stdout.write(`\n${summaryLine(summary)}\n`);
process.exit(summary.exitCode);
