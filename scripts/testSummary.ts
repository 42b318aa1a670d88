/**
 * The closing line of `npm test`, computed from what vitest left behind: one
 * JSON report per project run (or none, when the run died first) and the
 * run's exit status. Pure, so each way a run can fail is pinned by a test
 * over a real captured report (test/testSummary.test.ts).
 *
 * What vitest 4's JSON reporter writes, measured (docs/decisions.md):
 * - a failing test: `numFailedTests` counts it;
 * - a failing beforeAll: the file is `status: "failed"`, its tests are
 *   "skipped" and `numFailedTests` is 0 (the message is the hook's error when
 *   the hook is at file level, "" when it is inside a describe);
 * - a failing afterAll, a file that fails to import: the file is "failed"
 *   with the error as `message`, and nothing in `numFailedTests`;
 * - an unhandled error: nothing at all (`success: true`); only the exit code
 *   says so. `numFailedTestSuites` counts describes that merely contain a
 *   failed test, so it cannot tell a failed hook from a failed test.
 */

export interface ProjectRun {
  /** The project name, for the reason lines. */
  project: string;
  /** The JSON report's text, or undefined when no report was written. */
  report: string | undefined;
  /** The vitest process's exit status; null when it died by a signal. */
  exitStatus: number | null;
}

export interface TestSummary {
  passed: number;
  failed: number;
  skipped: number;
  exitCode: 0 | 1;
  /** One line per failure the test counts alone would not show. */
  reasons: string[];
}

interface FileResult {
  name: string;
  status: string;
  message: string;
  assertionResults: Array<{ status: string }>;
}

interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  success: boolean;
  testResults: FileResult[];
}

function parseReport(text: string | undefined): JsonReport | undefined {
  if (text === undefined) return undefined;
  try {
    const report = JSON.parse(text) as Partial<JsonReport>;
    const counts = [report.numPassedTests, report.numFailedTests, report.numPendingTests, report.numTodoTests];
    if (!counts.every((n) => Number.isInteger(n)) || !Array.isArray(report.testResults)) return undefined;
    return report as JsonReport;
  } catch {
    return undefined;
  }
}

/**
 * A file that failed though none of its tests did failed outside a test: a
 * hook, an import, collection. A file whose message is set failed at file
 * level even when a test failed too (a failed test and a failed afterAll).
 */
function fileLevelFailures(report: JsonReport): FileResult[] {
  return report.testResults.filter(
    (file) => file.status === 'failed' && (file.message !== '' || !file.assertionResults.some((test) => test.status === 'failed')),
  );
}

export function summarize(runs: ProjectRun[]): TestSummary {
  const summary: TestSummary = { passed: 0, failed: 0, skipped: 0, exitCode: 0, reasons: [] };
  for (const run of runs) {
    const report = parseReport(run.report);
    if (!report) {
      summary.failed += 1;
      summary.reasons.push(`${run.project}: no readable report (the run died before reporting, exit ${run.exitStatus ?? 'by signal'})`);
      continue;
    }
    summary.passed += report.numPassedTests;
    summary.skipped += report.numPendingTests + report.numTodoTests;
    let failed = report.numFailedTests;
    for (const file of fileLevelFailures(report)) {
      failed += 1;
      summary.reasons.push(`${run.project}: ${file.name} failed outside a test${file.message ? `: ${file.message.split('\n')[0]}` : ' (a hook inside a describe)'}`);
    }
    // The JSON report never shows an unhandled error; a non-zero exit with nothing else failing is one (or a runner error).
    if (failed === 0 && (run.exitStatus !== 0 || !report.success)) {
      failed = 1;
      summary.reasons.push(`${run.project}: the run failed (exit ${run.exitStatus ?? 'by signal'}) with no failed test: an unhandled error or a runner error, see its output`);
    }
    summary.failed += failed;
  }
  if (summary.passed === 0) summary.reasons.push('no test passed: a run that tested nothing is not green');
  if (summary.failed > 0 || summary.passed === 0 || runs.some((run) => run.exitStatus !== 0)) summary.exitCode = 1;
  return summary;
}

export function summaryLine(summary: Pick<TestSummary, 'passed' | 'failed' | 'skipped'>): string {
  return `tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`;
}
