import type { Command } from 'commander';
import { call, type Connection } from '../api.js';
import { action, encode, pageParams, positiveInteger } from '../context.js';
import { pageFooter, print, table } from '../output.js';

const deliveryStatuses = ['pending', 'succeeded', 'failed', 'no_endpoint'];
const auditColumns = ['createdAt', 'action', 'target', 'operator', 'details'];

/** deliveries list / retry (contract §9), dead-letters list / redrive (#14) and audit tail (§10). */
export function operationCommands(program: Command): void {
  const deliveries = program.command('deliveries').description('webhook deliveries of every partner');
  deliveries
    .command('list')
    .description('newest first')
    .option('--partner <partnerId>', 'one partner only')
    .option('--status <status>', deliveryStatuses.join(', '))
    .option('--test', "test mode's deliveries instead of live ones (contract §14)")
    .option('--page <n>', 'page number', positiveInteger)
    .option('--limit <n>', 'rows per page (1–100)', positiveInteger)
    .action(
      action(async ({ conn, out }, options: { partner?: string; status?: string; test?: boolean; page?: number; limit?: number }) => {
        const query = pageParams(options, { partnerId: options.partner, status: options.status, livemode: options.test ? 'false' : undefined });
        const page = await call(conn, 'GET', `/webhook-deliveries${query}`);
        print(out, page, () => table(page.data, ['id', 'eventType', 'status', 'attempts', 'lastStatusCode', 'nextAttemptAt', 'createdAt']) + pageFooter(page.pagination));
      }),
    );
  deliveries
    .command('retry <deliveryId>')
    .description('redeliver now')
    .action(
      action(async ({ conn, out }, id: string) => {
        const delivery = await call(conn, 'POST', `/webhook-deliveries/${encode(id)}/retry`);
        print(out, delivery, () => `${delivery.id} is ${delivery.status} (attempt ${delivery.attempts})`);
      }),
    );

  const deadLetters = program.command('dead-letters').description('events consumers gave up on (issue #14)');
  deadLetters
    .command('list')
    .description('oldest first; never the event body')
    .option('--consumer <durable>', 'one consumer only')
    .option('--page <n>', 'page number', positiveInteger)
    .option('--limit <n>', 'rows per page (1–100)', positiveInteger)
    .action(
      action(async ({ conn, out }, options: { consumer?: string; page?: number; limit?: number }) => {
        const page = await call(conn, 'GET', `/dead-letters${pageParams(options, { consumer: options.consumer })}`);
        print(out, page, () => table(page.data, ['sequence', 'consumer', 'eventType', 'eventId', 'attempts', 'reason', 'deadLetteredAt']) + pageFooter(page.pagination));
      }),
    );
  deadLetters
    .command('redrive <durable>')
    .description('publish the consumer’s dead letters again, once the cause is fixed')
    .action(
      action(async ({ conn, out }, consumer: string) => {
        const result = await call(conn, 'POST', '/dead-letters/redrive', { consumer });
        print(out, result, () => `${result.redriven} dead letter(s) of ${consumer} redriven`);
      }),
    );

  program
    .command('audit')
    .description('the operator audit log')
    .command('tail')
    .description('the latest entries, oldest first; --follow keeps printing new ones')
    .option('-n, --lines <n>', 'how many (1–100, default 20)', positiveInteger, 20)
    .option('-f, --follow', 'poll for new entries until interrupted')
    .option('--interval <ms>', 'poll interval with --follow', positiveInteger, 2000)
    .action(
      action(async ({ conn, out }, options: { lines: number; follow?: boolean; interval: number }) => {
        const latest = async (limit: number) => ((await call(conn, 'GET', `/audit?limit=${Math.min(100, limit)}`)).data as any[]).reverse();
        const show = (entries: any[]) => {
          if (entries.length === 0) return;
          if (out.json) for (const e of entries) process.stdout.write(`${JSON.stringify(e)}\n`);
          else process.stdout.write(`${table(entries, auditColumns)}\n`);
        };
        const first = await latest(options.lines);
        if (!options.follow) return print(out, first, () => table(first, auditColumns));
        show(first);
        await follow(conn, first, options.interval, latest, show);
      }),
    );

  // The reconciliation (contract §11, #23): run it now, or read the latest runs.
  const reconciliation = program.command('reconciliation').description('the wallet’s ledger against the orders (contract §11)');
  const findingColumns = ['kind', 'orderId', 'partnerId', 'amount', 'action', 'detail'];
  reconciliation
    .command('run')
    .description('run it now and print each mismatch with what was done')
    .action(
      action(async ({ conn, out }) => {
        const run = await call(conn, 'POST', '/reconciliation/run');
        print(out, run, () => `${run.mismatches} mismatch(es) in run ${run.id}\n${table(run.findings, findingColumns)}`);
      }),
    );
  reconciliation
    .command('list')
    .description('the latest runs, newest first')
    .action(
      action(async ({ conn, out }) => {
        const runs = await call(conn, 'GET', '/reconciliation');
        print(out, runs, () => table(runs.data, ['id', 'trigger', 'startedAt', 'finishedAt', 'mismatches']));
      }),
    );
}

async function follow(conn: Connection, seen: any[], interval: number, latest: (n: number) => Promise<any[]>, show: (e: any[]) => void): Promise<never> {
  const known = new Set(seen.map((e) => e.id));
  void conn;
  for (;;) {
    await new Promise((r) => setTimeout(r, interval));
    const fresh = (await latest(100)).filter((e) => !known.has(e.id));
    fresh.forEach((e) => known.add(e.id));
    show(fresh);
  }
}
