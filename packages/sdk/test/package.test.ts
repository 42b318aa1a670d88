// @esim/sdk as a partner installs it (#19): the published build in a fresh project, strict TypeScript over the
// README's examples, and plain Node importing it and verifying a signed webhook.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildSdkPackage } from '../../../scripts/sdk/buildPackage.js';
import { readmeExample } from '../../../test/e2e/support/readmeExamples.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const project = mkdtempSync(join(tmpdir(), 'sdk-consumer-'));
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

beforeAll(() => {
  const built = buildSdkPackage(join(project, 'build'));
  mkdirSync(join(project, 'node_modules', '@esim'), { recursive: true });
  cpSync(built, join(project, 'node_modules', '@esim', 'sdk'), { recursive: true });
  // Its one dependency (and that one's), as npm would install them; @types/node for the receiver example.
  symlinkSync(packageDir('openapi-fetch'), join(project, 'node_modules', 'openapi-fetch'));
  symlinkSync(dirname(createRequire(require.resolve('openapi-fetch')).resolve('openapi-typescript-helpers/package.json')), join(project, 'node_modules', 'openapi-typescript-helpers'));
  mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
  symlinkSync(packageDir('@types/node'), join(project, 'node_modules', '@types', 'node'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
}, 300_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

it('when the README’s examples are compiled in a fresh strict project, then they type-check against the published declarations', async () => {
  writeFileSync(join(project, 'order.ts'), readmeExample('packages/sdk/README.md', 'order'));
  writeFileSync(join(project, 'receiver.ts'), readmeExample('packages/sdk/README.md', 'receiver'));
  writeFileSync(join(project, 'testMode.ts'), readmeExample('packages/sdk/README.md', 'test-mode'));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'], lib: ['ES2023', 'DOM'] }, include: ['order.ts', 'receiver.ts', 'testMode.ts'] }),
  );
  const tsc = require.resolve('typescript/bin/tsc');
  const result = await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
  expect(result.stdout).toBe('');
}, 300_000);

it('when plain Node imports the package, then createClient and webhooks.verify work without TypeScript', async () => {
  const script = `
    import { createHmac } from 'node:crypto';
    import { createClient, webhooks } from '@esim/sdk';
    const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', createdAt: 'now', data: { message: 'hi' } });
    const event = await webhooks.verify(body, { 'x-service-signature': createHmac('sha256', 'whsec_x').update(body).digest('hex') }, 'whsec_x');
    console.log(typeof createClient({ baseUrl: 'http://x', apiKey: 'k' }).orders.create, event.type);`;
  writeFileSync(join(project, 'check.mjs'), script);
  const { stdout } = await run(process.execPath, ['check.mjs'], { cwd: project });
  expect(stdout.trim()).toBe('function webhook.test');
}, 120_000);
