/**
 * `npm run sdk:build [outDir]`: @esim/sdk as it is published, in
 * packages/sdk/dist (or outDir): ES modules and declarations compiled from
 * src/, its README, and a package.json whose exports lead to them (the
 * workspace's own exports lead to src/ for the monorepo's tooling). Publish
 * with `npm publish packages/sdk/dist`.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = fileURLToPath(new URL('../../packages/sdk', import.meta.url));

export function buildSdkPackage(outDir = join(sdk, 'dist')): string {
  const out = resolve(outDir);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const config = join(out, 'tsconfig.build.json');
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023', 'DOM'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        declaration: true,
        skipLibCheck: true,
        types: [],
        rootDir: join(sdk, 'src'),
        outDir: out,
      },
      include: [join(sdk, 'src')],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', config], { encoding: 'utf8' });
  rmSync(config);
  if (run.status !== 0) throw new Error(`tsc failed:\n${run.stdout}${run.stderr}`);
  const manifest = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8'));
  const published = {
    ...manifest,
    exports: { '.': { types: './index.d.ts', default: './index.js' } },
    types: './index.d.ts',
    files: undefined,
  };
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  copyFileSync(join(sdk, 'README.md'), join(out, 'README.md'));
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`built ${buildSdkPackage(process.argv[2])}\n`);
}
