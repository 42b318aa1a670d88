/**
 * `npm test`: the unit project, then the end-to-end project (which boots the
 * real platform once), each with vitest's normal output, then one closing
 * line `tests: N passed, N failed, N skipped` that CI and humans can read.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './launcher/supervisor.js';

const resultsDir = join(repoRoot, 'var', 'test-results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

const totals = { passed: 0, failed: 0, skipped: 0 };
let exitCode = 0;
for (const project of ['unit', 'e2e']) {
  const outputFile = join(resultsDir, `${project}.json`);
  const run = spawnSync(
    process.execPath,
    [join(repoRoot, 'node_modules/vitest/vitest.mjs'), 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${outputFile}`],
    { cwd: repoRoot, stdio: 'inherit' },
  );
  if (run.status !== 0) exitCode = 1;
  try {
    const report = JSON.parse(readFileSync(outputFile, 'utf8')) as JsonReport;
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += report.numPendingTests + report.numTodoTests;
  } catch {
    // The run died before reporting: count it as a failure so the summary cannot look clean.
    totals.failed += 1;
    exitCode = 1;
  }
}
if (totals.passed === 0) exitCode = 1;
process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(exitCode);
