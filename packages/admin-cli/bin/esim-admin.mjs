#!/usr/bin/env node
// The compiled CLI when `npm run build` has made it; in a checkout without a build, the TypeScript source through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli.ts', import.meta.url).href);
}
