// @esim/sdk as `npm pack` makes it in its own folder (#27): the tarball carries a built dist/ (prepack), installs offline into an
// empty project, type-checks a typed call against its declarations, and runs that call and webhooks.verify in plain Node.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const sdkDir = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'sdk-pack-'));
const consumer = join(work, 'consumer');
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, timeout: 240_000, env: { ...process.env, npm_config_update_notifier: 'false' } });

/**
 * The SDK's dependencies as tarballs made from the workspace's own copies, so
 * the install needs no registry: `npm install --offline` with them beside the
 * SDK resolves `openapi-fetch@0.17.0` to the one given.
 */
async function dependencyTarball(name: string, from: string): Promise<string> {
  const dir = dirname(createRequire(from).resolve(`${name}/package.json`));
  const tarball = join(work, `${name}.tgz`);
  await run('tar', ['czf', tarball, '-C', dir, '--transform', 's,^\\.,package,', '.']);
  return tarball;
}

beforeAll(async () => {
  await npm(['pack', '--pack-destination', work], sdkDir);
  const sdk = join(work, readdirSync(work).find((file) => file.startsWith('esim-sdk-') && file.endsWith('.tgz'))!);
  const fetchTarball = await dependencyTarball('openapi-fetch', import.meta.url);
  const helpers = await dependencyTarball('openapi-typescript-helpers', require.resolve('openapi-fetch'));
  rmSync(consumer, { recursive: true, force: true });
  await run('mkdir', ['-p', consumer]);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await npm(['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', sdk, fetchTarball, helpers], consumer);
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('when the SDK is packed from its folder, then the tarball holds the built dist/ its exports lead to', async () => {
  const { stdout } = await run('tar', ['tzf', join(work, readdirSync(work).find((file) => file.startsWith('esim-sdk-'))!)]);
  expect(stdout).toContain('package/dist/index.js');
  expect(stdout).toContain('package/dist/index.d.ts');
});

it('when a fresh project installs the tarball, then a typed quote call compiles strictly and runs, and webhooks.verify accepts a signed body', async () => {
  writeFileSync(
    join(consumer, 'quote.ts'),
    `import { createClient, type Quote } from '@esim/sdk';
const answer: Quote = { planId: 'plan_x', quantity: 2, unitPrice: 750, price: 1500, currency: 'USD', walletBalance: 1000, balanceAfter: -500, sufficientBalance: false, compatible: null };
const client = createClient({
  baseUrl: 'http://platform.invalid',
  apiKey: 'sk_live_x',
  fetch: async (request) => new Response(request.url.endsWith('/partner/orders/quote') ? JSON.stringify(answer) : '{}', { status: 200, headers: { 'content-type': 'application/json' } }),
});
const quote: Quote = await client.orders.quote({ planId: 'plan_x', email: 'a@example.com', phoneNumber: '+33612345678', quantity: 2 });
// @ts-expect-error quantity is a number, not a string
void client.orders.quote({ planId: 'plan_x', email: 'a@example.com', phoneNumber: '+33612345678', quantity: '2' });
console.log(quote.price, quote.sufficientBalance);
`,
  );
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: [], lib: ['ES2023', 'DOM'], outDir: 'out' }, include: ['quote.ts'] }),
  );
  const tsc = require.resolve('typescript/bin/tsc');
  const compiled = await run(process.execPath, [tsc, '-p', consumer], { cwd: consumer }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
  expect(compiled.stdout).toBe('');
  writeFileSync(join(consumer, 'out', 'package.json'), JSON.stringify({ type: 'module' }));
  const quoted = await run(process.execPath, [join(consumer, 'out', 'quote.js')], { cwd: consumer });
  expect(quoted.stdout.trim()).toBe('1500 false');

  writeFileSync(
    join(consumer, 'verify.mjs'),
    `import { createHmac } from 'node:crypto';
import { webhooks } from '@esim/sdk';
const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', createdAt: 'now', data: { message: 'hi' } });
const event = await webhooks.verify(body, { 'x-service-signature': createHmac('sha256', 'whsec_x').update(body).digest('hex') }, 'whsec_x');
console.log(event.type);`,
  );
  const verified = await run(process.execPath, ['verify.mjs'], { cwd: consumer });
  expect(verified.stdout.trim()).toBe('webhook.test');
}, 300_000);
