// esim-admin against the whole platform (#19): an operator approves and funds a partner from the shell, with tables
// for people, --json for scripts and the documented exit codes.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../packages/admin-cli/src/main.js';
import { api, asKey, platform, portalToken, registerPartner, until, verifyEmailOf, waitForMail, withToken } from './support/client.js';
import { fundedPartner } from './support/money.js';

const bin = fileURLToPath(new URL('../../packages/admin-cli/bin/esim-admin.mjs', import.meta.url));

/** Runs the CLI in this process (as the bin does), capturing what it prints. */
async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const write = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    const code = await main(argv);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    process.exitCode = undefined;
  }
}
const json = async (...argv: string[]) => {
  const run = await cli('--json', ...argv);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

beforeEach(() => {
  process.env.ADMIN_URL = platform.adminUrl;
  process.env.ADMIN_TOKEN = platform.adminToken;
  process.env.ADMIN_OPERATOR = 'cli-test';
});
afterEach(() => {
  delete process.env.ADMIN_URL;
  delete process.env.ADMIN_TOKEN;
  delete process.env.ADMIN_OPERATOR;
});

describe('esim-admin', () => {
  it('when an operator reviews, approves, funds, re-tiers, suspends and reinstates a partner, then each step shows in the API and the audit log', async () => {
    const { application, answer } = await registerPartner();
    const id = answer.body.id as string;
    await verifyEmailOf(application.email);

    const pending = await json('applications', 'list', '--limit', '100');
    expect(pending.data.map((p: any) => p.id)).toContain(id);
    const table = await cli('applications', 'list', '--limit', '100');
    expect(table.stdout).toMatch(/^ID\s+STATUS\s+TIER\s+COMPANY/m);
    expect(table.stdout).toContain(id);

    const approved = await cli('applications', 'approve', id, '--tier', 'premium');
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`approved ${id} (premium)`);
    await waitForMail(application.email, 'Your partner account is approved');

    const topUp = await cli('wallet', 'top-up', id, '12345', '--reference', `WIRE-${id}`);
    expect(topUp.stdout).toMatch(/credited\s+123\.45/);
    expect((await json('wallet', 'show', id)).balance).toBe(12345);
    const adjusted = await json('wallet', 'adjust', id, '-345', '--reason', 'fee correction');
    expect(adjusted.balance).toBe(12000);

    expect((await json('partners', 'tier', id, 'enterprise')).tier).toBe('enterprise');
    expect((await json('partners', 'suspend', id)).status).toBe('suspended');
    expect((await json('partners', 'reinstate', id)).status).toBe('approved');
    const shown = await cli('partners', 'show', id);
    expect(shown.stdout).toMatch(/walletBalance\s+120\.00/);

    const key = await json('keys', 'issue', id, '--scopes', 'catalog:read');
    expect(key.scopes).toEqual(['catalog:read']);
    expect((await json('keys', 'revoke', id, key.id)).revokedAt).toBeTruthy();
    expect((await cli('webhook-secret', 'rotate', id)).code).toBe(0);

    // Wallet actions reach the audit log by an event: wait for them.
    const actions = ['partner.approved', 'partner.suspended', 'api_key.revoked', 'webhook_secret.rotated', 'wallet.topup', 'wallet.adjustment'];
    const audit = await until(
      async () => {
        const tail = await cli('audit', 'tail', '-n', '30');
        return actions.every((a) => tail.stdout.includes(a)) ? tail : undefined;
      },
      'the audit log to show every action',
      20_000,
      300,
    );
    // The actor is the credential (ADMIN_TOKEN here); ADMIN_OPERATOR is only a note (§10).
    expect(audit.stdout).toMatch(new RegExp(`partner\\.approved\\s+${id}\\s+admin-token`));
  });

  it('when an admin creates an operator, then the operator signs in with its own e-mailed token (ESIM_OPERATOR_TOKEN) and its role limits it', async () => {
    const email = `cli-operator-${Date.now()}@example.test`;
    const created = await json('operators', 'create', email, 'Cli Viewer', '--role', 'viewer');
    expect(created).toMatchObject({ id: expect.stringMatching(/^opr_/), role: 'viewer' });
    const [mail] = await waitForMail(email, 'Your operator account');
    const token = /^Operator token: (op_\S+)$/m.exec(mail!.text)![1]!;
    process.env.ESIM_OPERATOR_TOKEN = token;
    try {
      expect(await json('operators', 'whoami')).toMatchObject({ id: created.id, email, role: 'viewer' });
      const refused = await cli('plans', 'deactivate', 'plan_01jzzzzzzzzzzzzzzzzzzzzzzz');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('admin role');
    } finally {
      delete process.env.ESIM_OPERATOR_TOKEN;
    }
    expect((await json('operators', 'revoke', created.id)).revokedAt).toBeTruthy();
  });

  it('when an operator creates, lists and deactivates a plan and lists deliveries, then the catalog follows', async () => {
    const sku = `CLI-${Date.now()}`;
    const created = await json('plans', 'create', '--name', 'CLI test 1 GB', '--countries', 'mt', '--data-mb', '1024', '--validity-days', '7', '--floor-price', '300', '--retail-price', '600', '--supplier-sku', sku, '--supplier-cost', '100');
    expect(created).toMatchObject({ countries: ['MT'], active: true, supplierSku: sku });
    const listed = await cli('plans', 'list', '--country', 'MT', '--limit', '100');
    expect(listed.stdout).toContain(created.id);
    expect(listed.stdout).toContain('3.00');
    const described = await json('plans', 'update', created.id, '--networks', 'MT:GO:4G/5G,MT:Epic:4G', '--sms', 'true', '--top-upable', 'false', '--profile-type', 'PT-MT');
    expect(described).toMatchObject({
      networks: [
        { country: 'MT', operator: 'GO', generations: ['4G', '5G'] },
        { country: 'MT', operator: 'Epic', generations: ['4G'] },
      ],
      sms: true,
      voice: false,
      topUpable: false,
      profileType: 'PT-MT',
    });
    const unlimited = await json('plans', 'update', created.id, '--unlimited', 'true', '--fair-use-mb', '10240', '--throttle-kbps', '512');
    expect(unlimited).toMatchObject({ unlimited: true, dataMb: null, fairUseMb: 10240, throttleKbps: 512 });
    expect((await json('plans', 'deactivate', created.id)).active).toBe(false);
    const deliveries = await json('deliveries', 'list', '--limit', '5');
    expect(deliveries.pagination.limit).toBe(5);
  });

  it('when an operator asks with --test, then the wallet and the deliveries shown are the partner\'s test mode\'s, and without it the live ones (§14)', async () => {
    const partner = await fundedPartner(5_000);
    const token = await portalToken(partner.email, partner.password);
    const testKey = (await api('/partner/me/test-keys', { method: 'POST', body: {}, ...withToken(token) })).body.key as string;
    expect((await asKey(testKey, '/partner/test/wallet/credit', { body: { amount: 777 } })).status).toBe(201);

    expect(await json('wallet', 'show', partner.id, '--test')).toMatchObject({ balance: 777, livemode: false });
    expect(await json('wallet', 'show', partner.id)).toMatchObject({ balance: 5_000, livemode: true });
    const testDeliveries = await until(async () => {
      const page = await json('deliveries', 'list', '--partner', partner.id, '--test');
      return page.data.length > 0 ? page : undefined;
    }, 'the test wallet.credited delivery');
    expect(testDeliveries.data.map((d: { eventType: string; livemode: boolean }) => [d.eventType, d.livemode])).toEqual([['wallet.credited', false]]);
    const live = await json('deliveries', 'list', '--partner', partner.id);
    expect(live.data.every((d: { livemode: boolean }) => d.livemode)).toBe(true);
  });

  it('when the API refuses, is unreachable, or the token is wrong, then the exit codes say which (2, 3, 4), and usage errors are 1', async () => {
    const missing = await cli('partners', 'show', 'ptn_00000000000000000000000000');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/404 PARTNER_NOT_FOUND/);
    const problem = await cli('--json', 'partners', 'show', 'ptn_00000000000000000000000000');
    expect(JSON.parse(problem.stdout).code).toBe('PARTNER_NOT_FOUND');
    expect((await cli('--token', 'adm_wrong_wrong_wrong_wrong_wrong', 'partners', 'list')).code).toBe(4);
    expect((await cli('--url', 'http://127.0.0.1:9', 'partners', 'list')).code).toBe(3);
    expect((await cli('wallet', 'top-up', 'ptn_x', 'ten', '--reference', 'x')).code).toBe(1);
    expect((await cli('partners', 'frobnicate')).code).toBe(1);
  });

  it('when run as the workspace bin, then it prints a table and exits 0', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [bin, 'partners', 'list', '--limit', '1'], {
      env: { ...process.env, ADMIN_URL: platform.adminUrl, ADMIN_TOKEN: platform.adminToken },
    });
    expect(stdout).toMatch(/^ID\s+STATUS/m);
  });
});
