import type { Command } from 'commander';
import { call } from '../api.js';
import { action, encode, pageParams, positiveInteger } from '../context.js';
import { money, pageFooter, print, table } from '../output.js';

const planColumns = ['id', 'name', 'countries', 'region', 'dataMb', 'validityDays', 'floorPrice', 'retailPrice', 'supplierSku', 'unlimited', 'topUpable', 'active'];

/** `FR:Orange:4G/5G,FR:SFR:4G` → one network per country and operator (§5). */
function networks(value: string): { country: string; operator: string; generations: string[] }[] {
  return value.split(',').map((entry) => {
    const [country = '', operator = '', generations = ''] = entry.split(':').map((part) => part.trim());
    return { country: country.toUpperCase(), operator, generations: generations.split('/').map((g) => g.trim().toUpperCase()) };
  });
}

const bool = (value: string) => value === 'true';

/** The traveller facts (§5) and the operator's profile type, as options shared by create and update. */
function travellerOptions(command: Command): Command {
  return command
    .option('--unlimited <bool>', 'true: unlimited data (then --fair-use-mb and --throttle-kbps; no --data-mb)', bool)
    .option('--fair-use-mb <n>', 'unlimited plans: data at full speed', positiveInteger)
    .option('--throttle-kbps <n>', 'unlimited plans: the speed after the fair use', positiveInteger)
    .option('--networks <list>', 'country:operator:generations, comma-separated, e.g. FR:Orange:4G/5G,FR:SFR:4G', networks)
    .option('--voice <bool>', 'true or false', bool)
    .option('--sms <bool>', 'true or false', bool)
    .option('--kyc-required <bool>', 'true or false', bool)
    .option('--top-upable <bool>', 'true or false', bool)
    .option('--activation-policy <policy>', 'first_use, on_install or on_purchase')
    .option('--profile-type <type>', "the SM-DP+ profile type to order (operators only); 'default' for the SM-DP+'s own");
}

/** The traveller fields the operator gave, and nothing else. */
function travellerFields(o: Record<string, any>): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    unlimited: o.unlimited,
    fairUseMb: o.fairUseMb,
    throttleKbps: o.throttleKbps,
    networks: o.networks,
    voice: o.voice,
    sms: o.sms,
    kycRequired: o.kycRequired,
    topUpable: o.topUpable,
    activationPolicy: o.activationPolicy,
    profileType: o.profileType === 'default' ? null : o.profileType,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
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
  travellerOptions(
    plans
      .command('create')
      .description('create a plan (prices in minor units)')
      .requiredOption('--name <name>', 'e.g. "France 5 GB / 30 days"')
      .requiredOption('--countries <codes>', 'comma-separated, e.g. FR or FR,DE', (v: string) => v.split(',').map((c) => c.trim().toUpperCase()))
      .option('--region <name>', 'for a regional plan, e.g. Europe')
      .option('--data-mb <n>', 'data allowance in MB (not for an unlimited plan)', positiveInteger)
      .requiredOption('--validity-days <n>', 'validity in days', positiveInteger)
      .requiredOption('--floor-price <n>', 'wholesale floor price, minor units', positiveInteger)
      .requiredOption('--retail-price <n>', 'suggested retail price, minor units', positiveInteger)
      .requiredOption('--supplier-sku <sku>', "the supplier's SKU")
      .requiredOption('--supplier-cost <n>', 'what the supplier charges, minor units', positiveInteger)
      .option('--inactive', 'create it inactive'),
  ).action(
      action(async ({ conn, out }, o: Record<string, any>) => {
        const plan = await call(conn, 'POST', '/plans', {
          name: o.name,
          countries: o.countries,
          region: o.region ?? null,
          ...(o.dataMb === undefined ? {} : { dataMb: o.dataMb }),
          validityDays: o.validityDays,
          floorPrice: o.floorPrice,
          retailPrice: o.retailPrice,
          supplierSku: o.supplierSku,
          supplierCost: o.supplierCost,
          active: !o.inactive,
          ...travellerFields(o),
        });
        print(out, plan, () => `created ${plan.id} (${plan.name})`);
      }),
    );
  travellerOptions(plans.command('update <planId>').description("change a plan's traveller facts or profile type (only the options given)")).action(
    action(async ({ conn, out }, id: string, o: Record<string, any>) => {
      const plan = await call(conn, 'PATCH', `/plans/${encode(id)}`, travellerFields(o));
      print(out, plan, () => `updated ${plan.id} (${plan.name})`);
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
