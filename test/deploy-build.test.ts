// Protects the split between development (sources through tsx) and production (compiled dist/): plain Node must reach dist/, development runs must never pick up a stale dist/.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectConfig } from '../scripts/build/projects.js';
import { exportProblems, workspaces, type Workspace } from '../scripts/build/workspaces.js';
import { root } from './support/deployFiles.js';

const all = workspaces(root);
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };

describe('the build', () => {
  it('when the exports check sees a bare source export, then it names the entry and the expected conditions', () => {
    const bare: Workspace = { dir: 'packages/config', name: '@esim/config', uses: [], exports: { '.': './src/index.ts' } };
    expect(exportProblems(root, bare)).toEqual([
      'packages/config/package.json exports["."]: expected {"types":"./src/index.ts","development":"./src/index.ts","default":"./dist/index.js"}',
    ]);
  });

  it.each(all.map((workspace) => [workspace.dir, workspace] as const))('when %s is imported, then types and development runs get src/ and plain Node gets dist/', (_dir, workspace) => {
    expect(exportProblems(root, workspace)).toEqual([]);
  });

  it.each(all.map((workspace) => [workspace.dir, workspace] as const))('when %s is compiled, then dist/ mirrors src/ so paths resolved from import.meta.url do not move', (dir, workspace) => {
    const configDir = join(root, 'node_modules/.cache/esim-build');
    const config = projectConfig(root, configDir, workspace, true);
    expect(resolve(configDir, config.compilerOptions.rootDir)).toBe(join(root, dir, 'src'));
    expect(resolve(configDir, config.compilerOptions.outDir)).toBe(join(root, dir, 'dist'));
    expect(config.include.map((path) => resolve(configDir, path))).toEqual([join(root, dir, 'src')]);
  });

  it('when a workspace imports another, then the other is built first (a project reference)', () => {
    const service = all.find((workspace) => workspace.dir === 'services/catalog');
    expect(service?.uses).toEqual(expect.arrayContaining(['packages/service', 'packages/telemetry']));
  });

  it('when the project references are followed, then none leads back to where it started (tsc -b refuses a circular graph)', () => {
    const usesOf = new Map(all.map((workspace) => [workspace.dir, workspace.uses]));
    const cycles: string[] = [];
    const visit = (dir: string, path: string[]) => {
      if (path.includes(dir)) return void cycles.push([...path.slice(path.indexOf(dir)), dir].join(' → '));
      for (const used of usesOf.get(dir) ?? []) visit(used, [...path, dir]);
    };
    for (const workspace of all) visit(workspace.dir, []);
    expect(cycles).toEqual([]);
  });

  it('when a workspace lists a test helper under devDependencies only, then the build does not reference it (tests are not compiled)', () => {
    const events = all.find((workspace) => workspace.dir === 'packages/events');
    const testing = all.find((workspace) => workspace.dir === 'packages/testing');
    expect(testing?.uses).toContain('packages/events');
    expect(events?.uses).not.toContain('packages/testing');
  });

  it('when an npm script runs sources through tsx, then it asks for the development condition, so a built dist/ is never run by mistake', () => {
    const scripts = ['.', ...all.map((workspace) => workspace.dir)].flatMap((dir) =>
      Object.entries(manifestOf(dir).scripts ?? {}).map(([name, command]) => ({ where: `${dir}/package.json scripts.${name}`, command })),
    );
    const unconditioned = scripts.filter(({ command }) => /--import[ =]tsx\b/.test(command) && !command.includes('--conditions=development'));
    expect(unconditioned.map(({ where }) => where)).toEqual([]);
  });
});
