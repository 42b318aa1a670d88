import type { Client } from '../../shared/api.js';
import { formatDateTime } from '../../shared/format.js';
import { pageOf, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { AuditEntry, Page } from '../../shared/types.js';
import { DataTable, Loaded, Pager, useResource } from '../../shared/ui.js';

function detailText(value: AuditEntry['details'][string]): string {
  if (value === null) return 'cleared';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** Every operator action, newest first, with who did it: the operator account (or admin-token), X-Operator as a note (§10). */
export function AuditPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Audit log', 'Operator console');
  const page = pageOf(route);
  const entries = useResource(() => api.get<Page<AuditEntry>>('/audit', { page, limit: 50 }), [page]);
  return (
    <>
      <h1>Audit log</h1>
      <div class="toolbar">
        <span class="spacer" />
        <button type="button" class="secondary" onClick={entries.reload}>
          Refresh
        </button>
      </div>
      <Loaded resource={entries}>
        {(result) => (
          <>
            <DataTable
              caption="Audit entries"
              rows={result.data}
              rowKey={(e) => e.id}
              empty="Nothing recorded yet."
              columns={[
                { label: 'When', render: (e) => formatDateTime(e.createdAt) },
                { label: 'Operator', render: (e) => (e.operator ? (e.operatorEmail ? `${e.operatorEmail} (${e.operator})` : e.operator) : <span class="muted">unnamed</span>) },
                { label: 'Action', render: (e) => <code>{e.action}</code> },
                { label: 'Target', render: (e) => <code>{e.target}</code> },
                {
                  label: 'Details',
                  render: (e) =>
                    Object.keys(e.details).length === 0
                      ? '—'
                      : Object.entries(e.details).map(([name, value]) => (
                          <div key={name}>
                            {name}: {detailText(value)}
                          </div>
                        )),
                },
                { label: 'Request', render: (e) => <small class="mono">{e.requestId}</small> },
              ]}
            />
            <Pager pagination={result.pagination} route={route} />
          </>
        )}
      </Loaded>
    </>
  );
}
