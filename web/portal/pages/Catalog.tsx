import { countryCodes } from '@esim/vocabulary';
import type { Client } from '../../shared/api.js';
import { countryName, formatAllowance } from '../../shared/format.js';
import { formatMoney } from '../../shared/money.js';
import { navigate, pageOf, withParams, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { Page, Plan } from '../../shared/types.js';
import { DataTable, FilterSelect, Loaded, Pager, useResource } from '../../shared/ui.js';

const countryOptions: Array<[string, string]> = [
  ['', 'All countries'],
  ...[...countryCodes].map((code): [string, string] => [code, countryName(code)]).sort((a, b) => a[1].localeCompare(b[1])),
];

const generationOptions: Array<[string, string]> = [
  ['', 'Any network'],
  ['5G', '5G'],
  ['4G', '4G'],
];
const unlimitedOptions: Array<[string, string]> = [
  ['', 'Any data'],
  ['true', 'Unlimited'],
  ['false', 'With a data allowance'],
];
const topUpOptions: Array<[string, string]> = [
  ['', 'Top-ups or not'],
  ['true', 'Can be topped up'],
  ['false', 'Cannot be topped up'],
];
const activation: Record<Plan['activationPolicy'], string> = { first_use: 'at first use', on_install: 'at installation', on_purchase: 'at purchase' };

/** The operators of a plan, by country when it covers several; each with its best generation. */
function networksOf(plan: Plan): string {
  if (plan.networks.length === 0) return '—';
  const shown = plan.networks.slice(0, 6).map((n) => `${plan.countries.length > 1 ? `${n.country} ` : ''}${n.operator} ${n.generations.at(-1) ?? ''}`.trim());
  return plan.networks.length > shown.length ? `${shown.join(', ')} +${plan.networks.length - shown.length}` : shown.join(', ');
}

/** What comes with the plan besides data (§5). */
function extrasOf(plan: Plan): string {
  const extras = [plan.voice && 'voice', plan.sms && 'SMS', plan.kycRequired && 'ID check', plan.topUpable ? 'top-ups' : 'no top-ups'].filter(Boolean);
  return `${extras.join(' · ')} · starts ${activation[plan.activationPolicy]}`;
}

/** Active plans at this partner's tier price, optionally for one country and by what a traveller gets (§5). */
export function CatalogPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Catalog', 'Partner portal');
  const country = route.query.get('country') ?? '';
  const generation = route.query.get('generation') ?? '';
  const unlimited = route.query.get('unlimited') ?? '';
  const topUpable = route.query.get('topUpable') ?? '';
  const page = pageOf(route);
  const plans = useResource(
    () => api.get<Page<Plan>>('/partner/me/catalog', { country, generation, unlimited, topUpable, page, limit: 50 }),
    [country, generation, unlimited, topUpable, page],
  );
  return (
    <>
      <h1>Catalog</h1>
      <p class="muted">Prices are your wholesale prices for your tier. Order through the API with a plan's id.</p>
      <div class="toolbar">
        <FilterSelect id="catalog-country" label="Country" value={country} options={countryOptions} onChange={(value) => navigate(withParams(route, { country: value }))} />
        <FilterSelect id="catalog-generation" label="Network" value={generation} options={generationOptions} onChange={(value) => navigate(withParams(route, { generation: value }))} />
        <FilterSelect id="catalog-unlimited" label="Data" value={unlimited} options={unlimitedOptions} onChange={(value) => navigate(withParams(route, { unlimited: value }))} />
        <FilterSelect id="catalog-topupable" label="Top-ups" value={topUpable} options={topUpOptions} onChange={(value) => navigate(withParams(route, { topUpable: value }))} />
      </div>
      <Loaded resource={plans}>
        {(result) => (
          <>
            <DataTable
              caption="Plans"
              rows={result.data}
              rowKey={(p) => p.id}
              empty={generation || unlimited || topUpable ? 'No active plan matches these filters.' : 'No active plan covers this country.'}
              columns={[
                { label: 'Plan', render: (p) => p.name },
                { label: 'Coverage', render: (p) => p.region ?? p.countries.map(countryName).join(', ') },
                { label: 'Data', render: (p) => formatAllowance(p) },
                { label: 'Validity', render: (p) => `${p.validityDays} days` },
                { label: 'Networks', render: (p) => networksOf(p) },
                { label: 'Includes', render: (p) => extrasOf(p) },
                { label: 'Your price', numeric: true, render: (p) => formatMoney(p.wholesalePrice, p.currency) },
                { label: 'Plan id', render: (p) => <code>{p.id}</code> },
              ]}
            />
            <Pager pagination={result.pagination} route={route} />
          </>
        )}
      </Loaded>
    </>
  );
}
