import { countryCodes } from '@esim/vocabulary';
import type { Client } from '../../shared/api.js';
import { countryName, formatAllowance } from '../../shared/format.js';
import { formatMoney } from '../../shared/money.js';
import { href, navigate, pageOf, withParams, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { AdminPlan, Page } from '../../shared/types.js';
import { Badge, DataTable, FilterSelect, Loaded, Pager, useResource } from '../../shared/ui.js';
import { useCan } from '../role.js';

const activeOptions: Array<[string, string]> = [
  ['', 'All'],
  ['true', 'Active'],
  ['false', 'Inactive'],
];
const countryOptions: Array<[string, string]> = [
  ['', 'All countries'],
  ...[...countryCodes].map((code): [string, string] => [code, countryName(code)]).sort((a, b) => a[1].localeCompare(b[1])),
];

/** Every plan with its internal fields: floor, retail, supplier SKU and cost (§5). */
export function PlansPage({ api, route }: { api: Client; route: Route }) {
  const can = useCan();
  useTitle('Plans', 'Operator console');
  const active = route.query.get('active') ?? '';
  const country = route.query.get('country') ?? '';
  const page = pageOf(route);
  const plans = useResource(() => api.get<Page<AdminPlan>>('/plans', { active, country, page, limit: 50 }), [active, country, page]);
  return (
    <>
      <h1>Plans</h1>
      <div class="toolbar">
        <FilterSelect id="plans-active" label="State" value={active} options={activeOptions} onChange={(value) => navigate(withParams(route, { active: value }))} />
        <FilterSelect id="plans-country" label="Country" value={country} options={countryOptions} onChange={(value) => navigate(withParams(route, { country: value }))} />
        <span class="spacer" />
        {can('admin') && (
          <a class="button" href="#/plans/new">
            New plan
          </a>
        )}
      </div>
      <Loaded resource={plans}>
        {(result) => (
          <>
            <DataTable
              caption="Plans"
              rows={result.data}
              rowKey={(p) => p.id}
              empty="No plan matches."
              columns={[
                { label: 'Plan', render: (p) => <a href={href('plans', p.id)}>{p.name}</a> },
                { label: 'Coverage', render: (p) => p.region ?? p.countries.join(', ') },
                { label: 'Data', render: (p) => `${formatAllowance(p)} · ${p.validityDays} d` },
                { label: 'Floor', numeric: true, render: (p) => formatMoney(p.floorPrice, p.currency) },
                { label: 'Retail', numeric: true, render: (p) => formatMoney(p.retailPrice, p.currency) },
                { label: 'Supplier', render: (p) => (<><code>{p.supplierSku}</code> {formatMoney(p.supplierCost, p.currency)}</>) },
                { label: 'State', render: (p) => <Badge value={p.active ? 'active' : 'inactive'} /> },
              ]}
            />
            <Pager pagination={result.pagination} route={route} />
          </>
        )}
      </Loaded>
    </>
  );
}
