import { esimStatuses } from '@esim/vocabulary';
import type { Client } from '../../shared/api.js';
import { coverage, lastErrorText, percentOf } from '../../shared/esim.js';
import { formatData, formatDateTime, humanize } from '../../shared/format.js';
import { href, navigate, pageOf, withParams, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { Esim, Page } from '../../shared/types.js';
import { Badge, DataTable, FilterSelect, Loaded, Pager, useResource } from '../../shared/ui.js';

const statusOptions: Array<[string, string]> = [['', 'All'], ...esimStatuses.map((s): [string, string] => [s, humanize(s)])];

/** The bundle now in use, else the next to start: what a traveller is on. */
function currentBundle(esim: Esim) {
  return esim.bundles.find((b) => b.status === 'active') ?? esim.bundles.find((b) => b.status === 'queued');
}

/** The partner's eSIMs, newest first, with a status filter (§13); each opens the order that issued it. */
export function EsimsPage({ api, route }: { api: Client; route: Route }) {
  useTitle('eSIMs', 'Partner portal');
  const status = route.query.get('status') ?? '';
  const page = pageOf(route);
  const esims = useResource(() => api.get<Page<Esim>>('/partner/me/esims', { status, page, limit: 20 }), [status, page]);
  return (
    <>
      <h1>eSIMs</h1>
      <p class="muted">Every eSIM you sold, with its use as the network reports it. Open one to see its bundles, top it up or check whether it can be cancelled.</p>
      <div class="toolbar">
        <FilterSelect id="esims-status" label="Status" value={status} options={statusOptions} onChange={(value) => navigate(withParams(route, { status: value }))} />
        <span class="spacer" />
        <button type="button" class="secondary" onClick={esims.reload}>
          Refresh
        </button>
      </div>
      <Loaded resource={esims}>
        {(result) => (
          <>
            <DataTable
              caption="eSIMs"
              rows={result.data}
              rowKey={(e) => e.iccid}
              empty="No eSIMs."
              columns={[
                { label: 'ICCID', render: (e) => <a href={href('orders', e.orderId)}>{e.iccid}</a> },
                {
                  label: 'Status',
                  render: (e) => (
                    <>
                      <Badge value={e.status} />
                      {e.suspended ? <Badge value="suspended" /> : null}
                    </>
                  ),
                },
                { label: 'EID', render: (e) => (e.eid ? <code>{e.eid}</code> : '—') },
                { label: 'Last failed install', render: (e) => lastErrorText(e) },
                { label: 'Coverage', render: (e) => coverage(e) },
                { label: 'Current bundle', render: (e) => currentBundle(e)?.planName ?? '—' },
                {
                  label: 'Data used',
                  numeric: true,
                  render: (e) =>
                    `${formatData(e.usage.dataUsedMb)} of ${formatData(e.usage.dataTotalMb)} (${percentOf(e.usage.dataUsedMb, e.usage.dataTotalMb)} %)`,
                },
                { label: 'Bundles', numeric: true, render: (e) => String(e.bundles.length) },
                { label: 'Issued', render: (e) => formatDateTime(e.createdAt) },
              ]}
            />
            <Pager pagination={result.pagination} route={route} />
          </>
        )}
      </Loaded>
    </>
  );
}
