// Protects the suite against a forgotten `.only`: with the repository's own vitest config, a focused test fails the run in both projects instead of silently skipping the rest.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const repoRoot = join(import.meta.dirname, '..');
// Inside the repository (var/ is ignored by git), so the fixtures' `import 'vitest'` resolves.
mkdirSync(join(repoRoot, 'var'), { recursive: true });
const root = mkdtempSync(join(repoRoot, 'var', 'allow-only-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const focused = "import { it } from 'vitest';\nit.only('focused', () => {});\nit('left out', () => {});\n";

it('when a unit or e2e test file holds it.only, then vitest with the repo config exits non-zero and names the .only', () => {
  mkdirSync(join(root, 'test', 'e2e', 'support'), { recursive: true });
  writeFileSync(join(root, 'test', 'focused.test.ts'), focused);
  writeFileSync(join(root, 'test', 'e2e', 'focused.test.ts'), focused);
  // The e2e project's globalSetup would boot the platform: a stub at the same path stands in for it.
  writeFileSync(join(root, 'test', 'e2e', 'support', 'globalSetup.ts'), 'export default function setup() {}\n');
  const reportFile = join(root, 'report.json');
  // CI=true would make vitest refuse .only by default; without it, only the config can be what refuses it.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'CI' && !name.startsWith('VITEST')));
  const run = spawnSync(
    process.execPath,
    [join(repoRoot, 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(repoRoot, 'vitest.config.ts'), '--root', root, '--project', 'unit', '--project', 'e2e', '--reporter=json', `--outputFile=${reportFile}`],
    { cwd: repoRoot, env, encoding: 'utf8', timeout: 60_000 },
  );
  expect(run.status, run.stderr).toBe(1);
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { testResults: Array<{ name: string; assertionResults: Array<{ title: string; status: string; failureMessages: string[] }> }> };
  expect(report.testResults.map((file) => file.name.slice(root.length)).sort()).toEqual(['/test/e2e/focused.test.ts', '/test/focused.test.ts']);
  for (const file of report.testResults) {
    const test = file.assertionResults.find((t) => t.title === 'focused');
    expect(test?.status).toBe('failed');
    expect(test?.failureMessages.join('\n')).toContain('Unexpected .only modifier');
  }
});
