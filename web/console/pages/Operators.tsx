import { useState } from 'preact/hooks';
import type { z } from 'zod';
import { operatorRoles } from '@esim/vocabulary';
import type { operatorView } from '../../../services/gateway/src/routes/admin/operators.js';
import { useAction } from '../../shared/actions.js';
import type { Client } from '../../shared/api.js';
import { formatDateTime } from '../../shared/format.js';
import { pageOf, type Route } from '../../shared/router.js';
import { useTitle } from '../../shared/shell.js';
import type { Page } from '../../shared/types.js';
import { Badge, DataTable, Loaded, Pager, TextField, useResource } from '../../shared/ui.js';
import { useCan, type Role } from '../role.js';

type Operator = z.output<typeof operatorView>;

/** What each role may do (§10), shown beside the choice so nobody grants more than they mean to. */
const roleHelp: Record<Role, string> = {
  viewer: 'viewer: reads everything, changes nothing',
  support: 'support: partner review, suspension, keys, secrets, webhook retries, dead letters',
  finance: 'finance: wallet top-ups and adjustments, the reconciliation',
  admin: 'admin: everything, plans and operators included',
};

/**
 * The operator accounts (§10). Anyone signed in sees who has access; only
 * an admin creates, re-roles and revokes. A new operator's token is
 * e-mailed to them once and never shown here: the console (and whoever
 * created the account) never holds it.
 */
export function OperatorsPage({ api, route }: { api: Client; route: Route }) {
  useTitle('Operators', 'Operator console');
  const can = useCan();
  const page = pageOf(route);
  const operators = useResource(() => api.get<Page<Operator>>('/operators', { page, limit: 50 }), [page]);
  const { run, pending, feedback } = useAction();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [roles, setRoles] = useState<Record<string, Role>>({});

  const create = () =>
    run({
      confirm: `Create the ${role} operator ${name} <${email}>? Their token is e-mailed to ${email} once and shown nowhere else.`,
      confirmLabel: 'Create operator',
      action: () => api.post<Operator>('/operators', { email, name, role }),
      done: (created) => {
        setEmail('');
        setName('');
        setRole('viewer');
        operators.reload();
        return `Operator ${created.email} created as ${created.role}; their token was e-mailed to them.`;
      },
    });
  const changeRole = (operator: Operator, next: Role) =>
    run({
      confirm: `Change ${operator.email} from ${operator.role} to ${next}? It applies within 2 seconds.`,
      confirmLabel: 'Change role',
      action: () => api.patch<Operator>(`/operators/${encodeURIComponent(operator.id)}`, { role: next }),
      done: (changed) => {
        operators.reload();
        return `${changed.email} is now ${changed.role}.`;
      },
    });
  const revoke = (operator: Operator) =>
    run({
      confirm: `Revoke ${operator.email}'s token? Every call with it is refused within 2 seconds. This cannot be undone.`,
      confirmLabel: 'Revoke operator',
      action: () => api.post<Operator>(`/operators/${encodeURIComponent(operator.id)}/revoke`),
      done: (revoked) => {
        operators.reload();
        return `${revoked.email} revoked.`;
      },
    });

  return (
    <>
      <h1>Operators</h1>
      {feedback}
      <Loaded resource={operators}>
        {(result) => (
          <>
            <DataTable
              caption="Operators"
              rows={result.data}
              rowKey={(o) => o.id}
              empty="No operator accounts yet: the admin token creates the first."
              columns={[
                { label: 'Operator', render: (o) => (<>{o.name} <span class="muted">{o.email}</span></>) },
                { label: 'Id', render: (o) => <code>{o.id}</code> },
                {
                  label: 'Role',
                  render: (o) =>
                    o.revokedAt || !can('admin') ? (
                      o.role
                    ) : (
                      <span class="field-inline">
                        <select
                          aria-label={`Role of ${o.email}`}
                          value={roles[o.id] ?? o.role}
                          onChange={(e) => setRoles({ ...roles, [o.id]: (e.currentTarget as HTMLSelectElement).value as Role })}
                        >
                          {operatorRoles.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>{' '}
                        <button
                          type="button"
                          class="secondary"
                          disabled={pending || (roles[o.id] ?? o.role) === o.role}
                          onClick={() => void changeRole(o, roles[o.id] ?? o.role)}
                          aria-label={`Change role of ${o.email}`}
                        >
                          Change role
                        </button>
                      </span>
                    ),
                },
                { label: 'Created', render: (o) => formatDateTime(o.createdAt) },
                { label: 'Last used', render: (o) => (o.lastUsedAt ? formatDateTime(o.lastUsedAt) : 'Never') },
                {
                  label: 'Status',
                  render: (o) =>
                    o.revokedAt ? (
                      <span>
                        <Badge value="revoked" /> {formatDateTime(o.revokedAt)}
                      </span>
                    ) : !can('admin') ? (
                      'active'
                    ) : (
                      <button type="button" class="danger" disabled={pending} onClick={() => void revoke(o)} aria-label={`Revoke ${o.email}`}>
                        Revoke
                      </button>
                    ),
                },
              ]}
            />
            <Pager pagination={result.pagination} route={route} />
          </>
        )}
      </Loaded>
      {can('admin') && (
        <section class="card" aria-labelledby="new-operator-title">
          <h2 id="new-operator-title">New operator</h2>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void create();
            }}
          >
            <TextField id="operator-email" label="E-mail" type="email" required maxLength={254} value={email} onInput={setEmail} hint="Their token is e-mailed here, once." />
            <TextField id="operator-name" label="Name" required maxLength={200} value={name} onInput={setName} />
            <div class="field">
              <label for="operator-role">Role</label>
              <select id="operator-role" value={role} onChange={(e) => setRole((e.currentTarget as HTMLSelectElement).value as Role)} aria-describedby="operator-role-hint">
                {operatorRoles.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
              <small id="operator-role-hint" class="hint">
                {roleHelp[role]}
              </small>
            </div>
            <button type="submit" disabled={pending || !email || !name.trim()}>
              Create operator
            </button>
          </form>
        </section>
      )}
    </>
  );
}
