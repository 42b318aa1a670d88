/**
 * `npm run build`: compiles every workspace's src/ to dist/ (same layout,
 * so paths resolved at run time from import.meta.url, such as
 * `../migrations` and the repository's var/, are the same from both) with
 * `tsc -b`. The per-workspace project files are generated from the
 * workspaces themselves into node_modules/.cache/esim-build, so a new package
 * or service needs no build configuration of its own. Extra arguments go
 * to `tsc -b` (`npm run build -- --clean`, `-- --verbose`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configName, projectConfig } from './projects.js';
import { exportProblems, workspaces } from './workspaces.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const configDir = join(root, 'node_modules', '.cache', 'esim-build');

const all = workspaces(root);
const problems = all.flatMap((workspace) => exportProblems(root, workspace));
if (problems.length > 0) {
  process.stderr.write(`Cannot build: package.json exports must lead Node to dist/:\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}

rmSync(configDir, { recursive: true, force: true });
mkdirSync(configDir, { recursive: true });
const referenced = new Set(all.flatMap((workspace) => workspace.uses));
for (const workspace of all) {
  const config = projectConfig(root, configDir, workspace, referenced.has(workspace.dir));
  writeFileSync(join(configDir, configName(workspace.dir)), `${JSON.stringify(config, null, 2)}\n`);
}
const solution = join(configDir, 'all.json');
writeFileSync(solution, `${JSON.stringify({ files: [], references: all.map((w) => ({ path: `./${configName(w.dir)}` })) }, null, 2)}\n`);

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const startedAt = Date.now();
const run = spawnSync(process.execPath, [tsc, '-b', solution, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
const done = process.argv.includes('--clean') ? 'removed the dist/ output of' : 'built';
process.stdout.write(`${done} ${all.length} workspaces (<workspace>/dist) in ${((Date.now() - startedAt) / 1000).toFixed(1)}s\n`);
