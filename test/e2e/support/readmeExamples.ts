import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** The ```ts block after `<!-- example: name -->` in a README, verbatim. */
export function readmeExample(readme: string, name: string): string {
  const text = readFileSync(join(repoRoot, readme), 'utf8');
  const match = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(text);
  if (!match) throw new Error(`${readme} has no example "${name}"`);
  return match[1]!;
}

export interface RunningExample {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Runs an example as a partner would run a file of their own: a module under
 * the repository's var/ (so `@esim/sdk` resolves to the workspace), executed
 * by Node with tsx, with the environment it reads.
 */
export function runExample(code: string, name: string, env: Record<string, string>): RunningExample {
  const dir = join(repoRoot, 'var', 'e2e', 'examples');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${process.pid}.mts`);
  writeFileSync(file, code);
  const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', file], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}
