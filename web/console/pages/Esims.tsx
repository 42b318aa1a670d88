import { esimStatuses } from '@esim/vocabulary';
import type { Client } from '../../shared/api.js';
import { coverage, percentOf } from '../../shared/esim.js';
import { formatData, formatDateTime, humanize } from '../../shared/format.js';
import { href, navigate, pageOf, withParams, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import { partnerOfAccount } from '../../shared/testMode.js';
import type { AdminEsim, Page } from '../../shared/types.js';
import { Badge, DataTable, FilterSelect, Loaded, Pager, useResource } from '../../shared/ui.js';
import { ListModeFrame, listModeQuery, ListModeSwitch } from '../listMode.js';

const statusOptions: Array<[string, string]> = [['', 'All'], ...esimStatuses.map((s): [string, string] => [s, humanize(s)])];

/** eSIMs of every partner, newest first, by partner and status; test eSIMs only behind the switch (§13, §14). */
export function EsimsPage({ api, route }: { api: Client; route: Route }) {
  useTitle('eSIMs', 'Operator console');
  const status = route.query.get('status') ?? '';
  const partnerId = route.query.get('partnerId') ?? '';
  const livemode = route.query.get('livemode') ?? '';
  const page = pageOf(route);
  const esims = useResource(() => api.get<Page<AdminEsim>>('/esims', { status, partnerId, page, limit: 20, ...listModeQuery(route) }), [status, partnerId, page, livemode]);
  return (
    <>
      <h1>eSIMs</h1>
      <div class="toolbar">
        <FilterSelect id="esims-status" label="Status" value={status} options={statusOptions} onChange={(value) => navigate(withParams(route, { status: value }))} />
        {partnerId && (
          <span>
            Partner <a href={href('partners', partnerId)}>{partnerId}</a> (<a href={withParams(route, { partnerId: '' })}>all partners</a>)
          </span>
        )}
        <span class="spacer" />
        <ListModeSwitch route={route} />
        <button type="button" class="secondary" onClick={esims.reload}>
          Refresh
        </button>
      </div>
      <ListModeFrame route={route} what="eSIMs">
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
                  ...(partnerId ? [] : [{ label: 'Partner', render: (e: AdminEsim) => <a href={withParams(route, { partnerId: partnerOfAccount(e.partnerId) })}>{e.partnerId}</a> }]),
                  { label: 'Status', render: (e) => (<><Badge value={e.status} />{e.suspended ? <Badge value="suspended" /> : null}</>) },
                  { label: 'Coverage', render: (e) => coverage(e) },
                  {
                    label: 'Data used',
                    numeric: true,
                    render: (e) => `${formatData(e.usage.dataUsedMb)} of ${formatData(e.usage.dataTotalMb)} (${percentOf(e.usage.dataUsedMb, e.usage.dataTotalMb)} %)`,
                  },
                  { label: 'Issued', render: (e) => formatDateTime(e.createdAt) },
                ]}
              />
              <Pager pagination={result.pagination} route={route} />
            </>
          )}
        </Loaded>
      </ListModeFrame>
    </>
  );
}
