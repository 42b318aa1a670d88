import type { Command } from 'commander';
import { call } from '../api.js';
import { action, encode, oneOf, pageParams, positiveInteger } from '../context.js';
import { pageFooter, print, table } from '../output.js';

const roles = ['viewer', 'support', 'finance', 'admin'];
const columns = ['id', 'email', 'name', 'role', 'createdAt', 'lastUsedAt', 'revokedAt'];

/** operators whoami / list / create / role / revoke (contract §10, #24). */
export function operatorCommands(program: Command): void {
  const operators = program.command('operators').description('operator accounts and their roles');
  operators
    .command('whoami')
    .description('the operator your token belongs to, and its role')
    .action(
      action(async ({ conn, out }) => {
        const me = await call(conn, 'GET', '/operators/me');
        print(out, me, () => `${me.id}${me.email ? ` (${me.email})` : ''}: ${me.role}`);
      }),
    );
  operators
    .command('list')
    .description('newest first')
    .option('--page <n>', 'page number', positiveInteger)
    .option('--limit <n>', 'rows per page (1–100)', positiveInteger)
    .action(
      action(async ({ conn, out }, options: { page?: number; limit?: number }) => {
        const page = await call(conn, 'GET', `/operators${pageParams(options, {})}`);
        print(out, page, () => table(page.data, columns) + pageFooter(page.pagination));
      }),
    );
  operators
    .command('create <email> <name>')
    .description('create an account; its token is e-mailed to the operator once')
    .requiredOption('--role <role>', roles.join(', '), oneOf(roles))
    .action(
      action(async ({ conn, out }, email: string, name: string, options: { role: string }) => {
        const created = await call(conn, 'POST', '/operators', { email, name, role: options.role });
        print(out, created, () => `created ${created.id} (${created.email}, ${created.role}); the token is on its way by e-mail`);
      }),
    );
  operators
    .command('role <operatorId> <role>')
    .description(`change the role (${roles.join(', ')})`)
    .action(
      action(async ({ conn, out }, id: string, role: string) => {
        const updated = await call(conn, 'PATCH', `/operators/${encode(id)}`, { role });
        print(out, updated, () => `${updated.id} is now ${updated.role}`);
      }),
    );
  operators
    .command('revoke <operatorId>')
    .description('the token stops working within 2 seconds')
    .action(
      action(async ({ conn, out }, id: string) => {
        const revoked = await call(conn, 'POST', `/operators/${encode(id)}/revoke`);
        print(out, revoked, () => `revoked ${revoked.id} at ${revoked.revokedAt}`);
      }),
    );
}
