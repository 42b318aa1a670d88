import { partnerStatuses } from '@esim/vocabulary';
import type { Client } from '../../shared/api.js';
import { formatDateTime, humanize } from '../../shared/format.js';
import { href, navigate, pageOf, withParams, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { Page, Partner } from '../../shared/types.js';
import { Badge, DataTable, FilterSelect, Loaded, Pager, useResource } from '../../shared/ui.js';

const statusOptions: Array<[string, string]> = [['', 'All'], ...partnerStatuses.map((s): [string, string] => [s, humanize(s)])];

/** Every partner account, newest first, by status (§10). */
export function PartnersPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Partners', 'Operator console');
  const status = route.query.get('status') ?? '';
  const page = pageOf(route);
  const partners = useResource(() => api.get<Page<Partner>>('/partners', { status, page, limit: 20 }), [status, page]);
  return (
    <>
      <h1>Partners</h1>
      <div class="toolbar">
        <FilterSelect id="partners-status" label="Status" value={status} options={statusOptions} onChange={(value) => navigate(withParams(route, { status: value }))} />
      </div>
      <Loaded resource={partners}>
        {(result) => (
          <>
            <DataTable
              caption="Partners"
              rows={result.data}
              rowKey={(p) => p.id}
              empty="No partner in this state."
              columns={[
                { label: 'Company', render: (p) => <a href={href('partners', p.id)}>{p.company}</a> },
                { label: 'Contact', render: (p) => `${p.name} · ${p.email}` },
                { label: 'Status', render: (p) => <Badge value={p.status} /> },
                { label: 'Tier', render: (p) => humanize(p.tier) },
                { label: 'Since', render: (p) => formatDateTime(p.createdAt) },
              ]}
            />
            <Pager pagination={result.pagination} route={route} />
          </>
        )}
      </Loaded>
    </>
  );
}
