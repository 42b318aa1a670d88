// Protects the honesty of `npm test`'s closing line: every way a vitest run can fail (test, hook, import, unhandled error, no report) counts as a failure and a non-zero exit.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarize, summaryLine } from '../scripts/testSummary.js';

const fixtures = join(import.meta.dirname, 'fixtures', 'vitest-reports');
const report = (name: string) => readFileSync(join(fixtures, `${name}.json`), 'utf8');
const unit = (name: string | undefined, exitStatus: number | null) => ({ project: 'unit', report: name === undefined ? undefined : report(name), exitStatus });

describe('one project run', () => {
  it('when every test passes, then the passed, skipped and todo tests are counted and the exit code is 0', () => {
    const summary = summarize([unit('green', 0)]);
    expect(summary).toMatchObject({ passed: 2, failed: 0, skipped: 2, exitCode: 0 });
    expect(summary.reasons).toEqual([]);
  });

  const failures: Array<[string, string | undefined, { passed: number; failed: number; skipped: number }, RegExp]> = [
    ['a test fails', 'failing-test', { passed: 1, failed: 1, skipped: 0 }, /^$/],
    ['a file-level beforeAll throws', 'failing-beforeall', { passed: 0, failed: 1, skipped: 1 }, /failing-beforeall|setup broke/],
    ['a beforeAll inside a describe throws', 'failing-beforeall-in-describe', { passed: 0, failed: 1, skipped: 2 }, /hook inside a describe/],
    ['an afterAll throws after the tests passed', 'failing-afterall', { passed: 1, failed: 1, skipped: 0 }, /teardown broke/],
    ['a test file fails to import', 'import-error', { passed: 0, failed: 1, skipped: 0 }, /Cannot find module/],
    ['a passing test leaves an unhandled error', 'unhandled-error', { passed: 1, failed: 1, skipped: 0 }, /unhandled error/],
    ['the run wrote no report', undefined, { passed: 0, failed: 1, skipped: 0 }, /no readable report/],
  ];
  for (const [label, fixture, counts, reason] of failures) {
    it(`when ${label}, then it counts as a failure and the exit code is 1`, () => {
      const summary = summarize([unit(fixture, 1)]);
      expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual(counts);
      expect(summary.exitCode).toBe(1);
      expect(summary.reasons.join('\n')).toMatch(reason);
    });
  }

  it('when the report is cut short, then it counts as a run that wrote no report', () => {
    const summary = summarize([{ project: 'e2e', report: report('green').slice(0, 200), exitStatus: 1 }]);
    expect(summary).toMatchObject({ passed: 0, failed: 1, exitCode: 1 });
  });

  it('when vitest was killed by a signal after writing a green report, then the exit code is 1', () => {
    const summary = summarize([unit('green', null)]);
    expect(summary).toMatchObject({ failed: 1, exitCode: 1 });
  });

  it('when a test fails and an afterAll throws in the same file, then both are counted', () => {
    const both = JSON.parse(report('failing-afterall'));
    both.numPassedTests = 0;
    both.numFailedTests = 1;
    both.testResults[0].assertionResults[0].status = 'failed';
    const summary = summarize([{ project: 'unit', report: JSON.stringify(both), exitStatus: 1 }]);
    expect(summary).toMatchObject({ failed: 2, exitCode: 1 });
  });
});

describe('both projects', () => {
  it('when the unit run is green and the e2e run wrote no report, then the totals add up and the exit code is 1', () => {
    const summary = summarize([unit('green', 0), { project: 'e2e', report: undefined, exitStatus: 1 }]);
    expect(summaryLine(summary)).toBe('tests: 2 passed, 1 failed, 2 skipped');
    expect(summary.exitCode).toBe(1);
  });

  it('when both runs are green, then the line adds them and the exit code is 0', () => {
    const summary = summarize([unit('green', 0), { project: 'e2e', report: report('green'), exitStatus: 0 }]);
    expect(summaryLine(summary)).toBe('tests: 4 passed, 0 failed, 4 skipped');
    expect(summary.exitCode).toBe(0);
  });

  it('when nothing passed at all, then the exit code is 1 even with no failure', () => {
    const skippedOnly = JSON.parse(report('green'));
    skippedOnly.numPassedTests = 0;
    expect(summarize([{ project: 'unit', report: JSON.stringify(skippedOnly), exitStatus: 0 }]).exitCode).toBe(1);
  });
});
