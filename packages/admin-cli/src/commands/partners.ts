import type { Command } from 'commander';
import { call } from '../api.js';
import { action, encode, oneOf, pageParams, positiveInteger, tiers } from '../context.js';
import { fields, money, pageFooter, print, table } from '../output.js';

const partnerColumns = ['id', 'status', 'tier', 'company', 'email', 'createdAt'];
const statuses = ['pending', 'approved', 'rejected', 'suspended'];

function showPartner(partner: any): string {
  const keys = partner.apiKeys ? `\n\nAPI keys\n${table(partner.apiKeys, ['id', 'prefix', 'scopes', 'createdAt', 'lastUsedAt', 'revokedAt'])}` : '';
  return fields({ ...partner, apiKeys: undefined, walletBalance: money(partner.walletBalance) }, ['id', 'name', 'company', 'email', 'status', 'tier', 'webhookUrl', 'rejectionReason', 'walletBalance', 'createdAt']) + keys;
}

const paging = (command: Command) =>
  command.option('--page <n>', 'page number', positiveInteger).option('--limit <n>', 'rows per page (1–100)', positiveInteger);

/** applications (pending partners), partners, keys and the webhook secret: contract §10. */
export function partnerCommands(program: Command): void {
  const applications = program.command('applications').description('partner applications waiting for review');
  paging(applications.command('list').description('pending applications, newest first')).action(
    action(async ({ conn, out }, options: { page?: number; limit?: number }) => {
      const page = await call(conn, 'GET', `/partners${pageParams(options, { status: 'pending' })}`);
      print(out, page, () => table(page.data, partnerColumns) + pageFooter(page.pagination));
    }),
  );
  applications
    .command('approve <partnerId>')
    .description('approve: the key and webhook secret are e-mailed to the partner')
    .option('--tier <tier>', `pricing tier (${tiers.join(', ')})`, oneOf(tiers))
    .action(
      action(async ({ conn, out }, id: string, options: { tier?: string }) => {
        const partner = await call(conn, 'POST', `/partners/${encode(id)}/approve`, options.tier ? { tier: options.tier } : {});
        print(out, partner, () => `approved ${partner.id} (${partner.tier}); the API key and webhook secret went to ${partner.email}`);
      }),
    );
  applications
    .command('reject <partnerId>')
    .description('reject with a reason the applicant is told')
    .requiredOption('--reason <text>', 'why (sent to the applicant)')
    .action(
      action(async ({ conn, out }, id: string, options: { reason: string }) => {
        const partner = await call(conn, 'POST', `/partners/${encode(id)}/reject`, { reason: options.reason });
        print(out, partner, () => `rejected ${partner.id}`);
      }),
    );

  const partners = program.command('partners').description('partner accounts');
  paging(partners.command('list').description('partners, newest first').option('--status <status>', statuses.join(', '), oneOf(statuses))).action(
    action(async ({ conn, out }, options: { status?: string; page?: number; limit?: number }) => {
      const page = await call(conn, 'GET', `/partners${pageParams(options, { status: options.status })}`);
      print(out, page, () => table(page.data, partnerColumns) + pageFooter(page.pagination));
    }),
  );
  partners
    .command('show <partnerId>')
    .description('a partner with its keys and wallet balance')
    .action(
      action(async ({ conn, out }, id: string) => {
        const partner = await call(conn, 'GET', `/partners/${encode(id)}`);
        print(out, partner, () => showPartner(partner));
      }),
    );
  for (const [verb, help] of [
    ['suspend', 'suspend: its keys answer 403 ACCOUNT_NOT_ACTIVE'],
    ['reinstate', 'reinstate a suspended partner'],
  ] as const) {
    partners
      .command(`${verb} <partnerId>`)
      .description(help)
      .action(
        action(async ({ conn, out }, id: string) => {
          const partner = await call(conn, 'POST', `/partners/${encode(id)}/${verb}`);
          print(out, partner, () => `${partner.id} is now ${partner.status}`);
        }),
      );
  }
  partners
    .command('tier')
    .description('change the pricing tier')
    .argument('<partnerId>')
    .argument('<tier>', tiers.join(', '), oneOf(tiers))
    .action(
      action(async ({ conn, out }, id: string, tier: string) => {
        const partner = await call(conn, 'PATCH', `/partners/${encode(id)}`, { tier });
        print(out, partner, () => `${partner.id} is now on the ${partner.tier} tier`);
      }),
    );

  const keys = program.command('keys').description("a partner's API keys");
  keys
    .command('list <partnerId>')
    .description('keys metadata (never a secret)')
    .action(
      action(async ({ conn, out }, id: string) => {
        const list = await call(conn, 'GET', `/partners/${encode(id)}/keys`);
        const rows = Array.isArray(list) ? list : (list.data ?? list.apiKeys ?? []);
        print(out, list, () => table(rows, ['id', 'prefix', 'scopes', 'createdAt', 'lastUsedAt', 'revokedAt']));
      }),
    );
  keys
    .command('issue <partnerId>')
    .description('issue a further key: it is e-mailed to the partner, never shown here')
    .option('--scopes <list>', 'comma-separated scopes (default: all)', (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .action(
      action(async ({ conn, out }, id: string, options: { scopes?: string[] }) => {
        const key = await call(conn, 'POST', `/partners/${encode(id)}/keys`, options.scopes ? { scopes: options.scopes } : {});
        print(out, key, () => `issued ${key.id} (prefix ${key.prefix}, scopes ${key.scopes.join(',')}); the secret was e-mailed`);
      }),
    );
  keys
    .command('revoke <partnerId> <keyId>')
    .description('revoke a key at once')
    .action(
      action(async ({ conn, out }, id: string, keyId: string) => {
        const key = await call(conn, 'POST', `/partners/${encode(id)}/keys/${encode(keyId)}/revoke`);
        print(out, key, () => `revoked ${key.id ?? keyId}`);
      }),
    );

  program
    .command('webhook-secret')
    .description("a partner's webhook signing secret")
    .command('rotate <partnerId>')
    .description('new secret, e-mailed; the old one stops signing')
    .action(
      action(async ({ conn, out }, id: string) => {
        const result = await call(conn, 'POST', `/partners/${encode(id)}/webhook-secret/rotate`);
        print(out, result ?? { rotated: true }, () => `rotated the webhook secret of ${id}; the new one was e-mailed`);
      }),
    );
}
