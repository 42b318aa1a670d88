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

/** Active plans at this partner's tier price, optionally for one country (§5). */
export function CatalogPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Catalog', 'Partner portal');
  const country = route.query.get('country') ?? '';
  const page = pageOf(route);
  const plans = useResource(() => api.get<Page<Plan>>('/partner/me/catalog', { country, page, limit: 50 }), [country, page]);
  return (
    <>
      <h1>Catalog</h1>
      <p class="muted">Prices are your wholesale prices for your tier. Order through the API with a plan's id.</p>
      <div class="toolbar">
        <FilterSelect id="catalog-country" label="Country" value={country} options={countryOptions} onChange={(value) => navigate(withParams(route, { country: value }))} />
      </div>
      <Loaded resource={plans}>
        {(result) => (
          <>
            <DataTable
              caption="Plans"
              rows={result.data}
              rowKey={(p) => p.id}
              empty="No active plan covers this country."
              columns={[
                { label: 'Plan', render: (p) => p.name },
                { label: 'Coverage', render: (p) => p.region ?? p.countries.map(countryName).join(', ') },
                { label: 'Data', render: (p) => formatAllowance(p) },
                { label: 'Validity', render: (p) => `${p.validityDays} days` },
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
