import type { Command } from 'commander';
import { call } from '../api.js';
import { action, encode, pageParams, positiveInteger } from '../context.js';
import { money, pageFooter, print, table } from '../output.js';

const planColumns = ['id', 'name', 'countries', 'region', 'dataMb', 'validityDays', 'floorPrice', 'retailPrice', 'supplierSku', 'active'];
const shown = (plan: any) => ({ ...plan, floorPrice: money(plan.floorPrice), retailPrice: money(plan.retailPrice) });

/** plans list / create / deactivate (contract §5). */
export function planCommands(program: Command): void {
  const plans = program.command('plans').description('the catalog, with every internal field');
  plans
    .command('list')
    .description('plans, filtered by country or state')
    .option('--country <code>', 'ISO 3166-1 alpha-2 code, e.g. FR')
    .option('--active <bool>', 'true or false')
    .option('--page <n>', 'page number', positiveInteger)
    .option('--limit <n>', 'rows per page (1–100)', positiveInteger)
    .action(
      action(async ({ conn, out }, options: { country?: string; active?: string; page?: number; limit?: number }) => {
        const page = await call(conn, 'GET', `/plans${pageParams(options, { country: options.country, active: options.active })}`);
        print(out, page, () => table(page.data.map(shown), planColumns) + pageFooter(page.pagination));
      }),
    );
  plans
    .command('create')
    .description('create a plan (prices in minor units)')
    .requiredOption('--name <name>', 'e.g. "France 5 GB / 30 days"')
    .requiredOption('--countries <codes>', 'comma-separated, e.g. FR or FR,DE', (v: string) => v.split(',').map((c) => c.trim().toUpperCase()))
    .option('--region <name>', 'for a regional plan, e.g. Europe')
    .requiredOption('--data-mb <n>', 'data allowance in MB', positiveInteger)
    .requiredOption('--validity-days <n>', 'validity in days', positiveInteger)
    .requiredOption('--floor-price <n>', 'wholesale floor price, minor units', positiveInteger)
    .requiredOption('--retail-price <n>', 'suggested retail price, minor units', positiveInteger)
    .requiredOption('--supplier-sku <sku>', "the supplier's SKU")
    .requiredOption('--supplier-cost <n>', 'what the supplier charges, minor units', positiveInteger)
    .option('--inactive', 'create it inactive')
    .action(
      action(async ({ conn, out }, o: Record<string, any>) => {
        const plan = await call(conn, 'POST', '/plans', {
          name: o.name,
          countries: o.countries,
          region: o.region ?? null,
          dataMb: o.dataMb,
          validityDays: o.validityDays,
          floorPrice: o.floorPrice,
          retailPrice: o.retailPrice,
          supplierSku: o.supplierSku,
          supplierCost: o.supplierCost,
          active: !o.inactive,
        });
        print(out, plan, () => `created ${plan.id} (${plan.name})`);
      }),
    );
  plans
    .command('deactivate <planId>')
    .description('stop selling a plan (orders already placed are untouched)')
    .action(
      action(async ({ conn, out }, id: string) => {
        const plan = await call(conn, 'PATCH', `/plans/${encode(id)}`, { active: false });
        print(out, plan, () => `${plan.id} is now inactive`);
      }),
    );
}
