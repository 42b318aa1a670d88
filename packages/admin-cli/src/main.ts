/**
 * esim-admin: the admin API from a shell (#19). Reads ADMIN_URL (default
 * http://localhost:8081) and ESIM_OPERATOR_TOKEN or ADMIN_TOKEN (else the development token file
 * var/secrets/admin_token); prints tables, or the API's JSON with --json;
 * exits with the codes of errors.ts.
 */
import { Command, CommanderError } from 'commander';
import { operationCommands } from './commands/operations.js';
import { walletCommands } from './commands/money.js';
import { partnerCommands } from './commands/partners.js';
import { planCommands } from './commands/plans.js';
import { operatorCommands } from './commands/operators.js';
import { exitCodes } from './errors.js';

export function buildProgram(): Command {
  const program = new Command('esim-admin')
    .description('Operate the eSIM platform: review partners, fund wallets, manage plans, redeliver webhooks.')
    .option('--url <url>', 'admin API base URL (env ADMIN_URL, default http://localhost:8081)')
    .option('--token <token>', 'your operator token op_… (env ESIM_OPERATOR_TOKEN), or the break-glass admin token (env ADMIN_TOKEN, else var/secrets/admin_token)')
    .option('--operator <note>', 'a note kept beside your operator id in the audit log (env ADMIN_OPERATOR)')
    .option('--json', 'print the API’s JSON instead of tables')
    .showHelpAfterError()
    .exitOverride();
  partnerCommands(program);
  walletCommands(program);
  planCommands(program);
  operationCommands(program);
  operatorCommands(program);
  // Every subcommand exits through exitOverride too, so usage errors are exit code 1 everywhere.
  const override = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(override);
  };
  override(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? exitCodes.ok);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are successes; anything else commander refused is a usage error.
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
    }
    throw error;
  }
}
