// `npm run demo` against the whole platform (#19): every step's progress line, the QR code drawn, the webhooks verified.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { platform } from './support/client.js';

const demo = fileURLToPath(new URL('../../scripts/demo/demo.ts', import.meta.url));

it('when the demo runs against a running platform, then it walks all ten steps and ends with the portal login', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=development', '--import', 'tsx', demo], {
    env: {
      ...process.env,
      ESIM_URL: platform.publicUrl,
      ADMIN_URL: platform.adminUrl,
      ADMIN_TOKEN: platform.adminToken,
      DEMO_MAIL_URL: `${platform.controlUrl}/mail`,
      // Other suites add FR plans whose supplier SKUs fail on purpose.
      DEMO_COUNTRY: 'JP',
    },
    timeout: 200_000,
  }).catch((error: { stdout: string; stderr: string }) => ({ stdout: `${error.stdout}\n${error.stderr}` }));
  const progress = stdout.split('\n').filter((line) => /^ {2}[✓✗] \[\d+\/10\]/.test(line));
  expect(progress.map((line) => line.trim().split(']')[0] + ']'), stdout).toEqual(Array.from({ length: 10 }, (_, i) => `✓ [${i + 1}/10]`));
  expect(stdout).toMatch(/Registered demo-\d+-[0-9a-f]+@example\.com → ptn_/);
  expect(stdout).toMatch(/Provisioned: ICCID \d+/);
  // The terminal QR code: rows of half-block characters.
  expect(stdout).toMatch(/[▀▄█]{10,}/);
  expect(stdout).toMatch(/Webhooks received and verified \(both signatures\): payment\.paid evt_\S+, provision\.provisioned evt_/);
  expect(stdout).toMatch(/Done in [\d.]+s\. Log in to the partner portal/);
}, 240_000);
