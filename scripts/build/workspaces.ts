/**
 * The npm workspaces (packages/*, services/*) as the build sees them: where
 * their sources are, which other workspaces they import, and whether their
 * package.json `exports` lead plain Node to the compiled files.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Workspace {
  /** From the repository root, e.g. `packages/config`. */
  dir: string;
  /** The npm name, e.g. `@esim/config`. */
  name: string;
  /**
   * Other workspaces (by dir) that its sources import or its package.json
   * lists under `dependencies`. Not `devDependencies`: they serve test/,
   * which the build does not compile, and a test helper that depends on the
   * package it helps test (@esim/testing → @esim/events) would otherwise make
   * the project references circular.
   */
  uses: string[];
  exports: Record<string, unknown>;
}

interface Manifest {
  name: string;
  workspaces?: string[];
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
}

const readManifest = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Manifest;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Bare specifiers of workspace packages in a source file: `@esim/x` and `@esim/x/sub`. */
function importedPackages(file: string, names: Set<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](@[\w-]+\/[\w-]+)(?:\/[^'"]*)?['"]/g)].map((match) => match[1]!);
  return found.filter((name) => names.has(name));
}

/** Every workspace with a `src/` folder, in the order of the root package.json's `workspaces` globs. */
export function workspaces(root: string): Workspace[] {
  const patterns = readManifest(join(root, 'package.json')).workspaces ?? [];
  const dirs = patterns.flatMap((pattern) => {
    if (!/^[\w-]+\/\*$/.test(pattern)) throw new Error(`workspace pattern ${pattern}: only "<folder>/*" is supported by scripts/build`);
    const parent = pattern.slice(0, -2);
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, parent, entry.name, 'package.json')))
      .map((entry) => `${parent}/${entry.name}`)
      .sort();
  });
  const manifests = new Map(dirs.map((dir) => [dir, readManifest(join(root, dir, 'package.json'))]));
  const dirOf = new Map([...manifests].map(([dir, manifest]) => [manifest.name, dir]));
  const names = new Set(dirOf.keys());
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'src')))
    .map((dir) => {
      const manifest = manifests.get(dir)!;
      const listed = Object.keys(manifest.dependencies ?? {}).filter((name) => names.has(name));
      const imported = sourceFiles(join(root, dir, 'src')).flatMap((file) => importedPackages(file, names));
      const uses = [...new Set([...listed, ...imported])].filter((name) => name !== manifest.name).map((name) => dirOf.get(name)!);
      return { dir, name: manifest.name, uses: uses.filter((used) => existsSync(join(root, used, 'src'))).sort(), exports: manifest.exports ?? {} };
    });
}

/**
 * What is wrong with a workspace's `exports`: each entry must send the
 * type checker and development runs (`--conditions=development`, vitest) to
 * the source and plain Node to the compiled file beside it in dist/.
 */
export function exportProblems(root: string, workspace: Workspace): string[] {
  return Object.entries(workspace.exports).flatMap(([subpath, target]) => {
    const where = `${workspace.dir}/package.json exports["${subpath}"]`;
    const conditions = typeof target === 'string' ? undefined : (target as Record<string, string>);
    const source = conditions ? (conditions.development ?? conditions.types) : target;
    if (typeof source !== 'string' || !/^\.\/src\/.+\.ts$/.test(source)) return [`${where}: expected a ./src/<file>.ts source, found ${JSON.stringify(target)}`];
    const compiled = source.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '.js');
    const expected = { types: source, development: source, default: compiled };
    // A package published outside the workspace (the SDK) gives its consumers' type checker the declarations in dist/.
    const published = { development: source, types: compiled.replace(/\.js$/, '.d.ts'), default: compiled };
    const problems: string[] = [];
    if (JSON.stringify(target) !== JSON.stringify(expected) && JSON.stringify(target) !== JSON.stringify(published)) problems.push(`${where}: expected ${JSON.stringify(expected)}`);
    if (!existsSync(join(root, workspace.dir, source))) problems.push(`${where}: ${source} does not exist`);
    return problems;
  });
}
