import type { Command } from 'commander';
import { call } from '../api.js';
import { action, encode, positiveInteger, signedInteger } from '../context.js';
import { fields, money, print, table } from '../output.js';

/** wallet show / top-up / adjust (contract §6): amounts in minor units, as the API takes them. */
export function walletCommands(program: Command): void {
  const wallet = program.command('wallet').description("a partner's prepaid wallet (amounts in minor units: 1000 = 10.00)");
  wallet
    .command('show <partnerId>')
    .description('balance and the latest ledger entries')
    .option('--test', "the partner's test wallet instead of the live one (contract §14)")
    .action(
      action(async ({ conn, out }, id: string, options: { test?: boolean }) => {
        const w = await call(conn, 'GET', `/partners/${encode(id)}/wallet${options.test ? '?livemode=false' : ''}`);
        print(out, w, () => `balance ${money(w.balance, w.currency)}\n\n${table(w.ledger.map((e: any) => ({ ...e, amount: money(e.amount), balanceAfter: money(e.balanceAfter) })), ['id', 'type', 'amount', 'balanceAfter', 'reference', 'orderId', 'createdAt'])}`);
      }),
    );
  wallet
    .command('top-up')
    .description('credit the wallet (a bank transfer received); the same reference twice credits once')
    .argument('<partnerId>')
    .argument('<amount>', 'minor units, e.g. 10000 = 100.00', positiveInteger)
    .requiredOption('--reference <ref>', 'the transfer reference, e.g. WIRE-2026-0042')
    .option('--note <text>', 'a note for the ledger')
    .action(
      action(async ({ conn, out }, id: string, amount: number, options: { reference: string; note?: string }) => {
        const body = { amount, reference: options.reference, ...(options.note ? { note: options.note } : {}) };
        const credit = await call(conn, 'POST', `/partners/${encode(id)}/wallet/topups`, body);
        print(out, credit, () => fields({ credited: money(credit.entry.amount), balance: money(credit.balance), entry: credit.entry.id, reference: credit.entry.reference }));
      }),
    );
  wallet
    .command('adjust')
    .description('correct the balance by a signed amount (never below 0)')
    .argument('<partnerId>')
    .argument('<amount>', 'signed minor units, e.g. -500', signedInteger)
    .requiredOption('--reason <text>', 'why, for the audit log')
    .action(
      action(async ({ conn, out }, id: string, amount: number, options: { reason: string }) => {
        const credit = await call(conn, 'POST', `/partners/${encode(id)}/wallet/adjustments`, { amount, reason: options.reason });
        print(out, credit, () => fields({ adjusted: money(credit.entry.amount), balance: money(credit.balance), entry: credit.entry.id }));
      }),
    );
}
