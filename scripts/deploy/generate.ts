/**
 * `npm run deploy:gen`: writes docker-compose.yml, the kustomize base,
 * overlays and monitoring objects under deploy/k8s, and Compose's
 * Prometheus config from scripts/launcher/services.ts (and the alert rules
 * and dashboard under deploy/observability), and removes generated files
 * nothing makes any more (a service that left the list). Hand-written files
 * (no generated header) are left alone. test/deploy-generated.test.ts fails
 * when the committed files differ from what this writes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '../launcher/supervisor.js';
import { generatedDirs, generatedFiles, k8sDir } from './files.js';
import { generatedHeader } from './settings.js';

const files = generatedFiles();
let changed = 0;
for (const [path, text] of files) {
  const file = join(repoRoot, path);
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // new file
  }
  if (current === text) continue;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  changed += 1;
  process.stdout.write(`wrote ${path}\n`);
}
for (const dir of [k8sDir, ...generatedDirs]) {
  if (!existsSync(join(repoRoot, dir))) continue;
  for (const name of readdirSync(join(repoRoot, dir))) {
    const path = `${dir}/${name}`;
    if (!/\.(yaml|env)$/.test(name) || files.has(path)) continue;
    if (!readFileSync(join(repoRoot, path), 'utf8').startsWith(generatedHeader)) continue;
    rmSync(join(repoRoot, path));
    changed += 1;
    process.stdout.write(`removed ${path} (nothing generates it any more)\n`);
  }
}
process.stdout.write(changed === 0 ? 'deployment files are up to date\n' : `${changed} file(s) updated\n`);
