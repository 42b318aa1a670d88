import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { humanize } from './format.js';
import { withParams, type Route } from './router.js';
import type { Pagination } from './types.js';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads on mount and whenever `deps` change; a stale answer (deps changed meanwhile) is dropped. */
export function useResource<T>(load: () => Promise<T>, deps: unknown[]): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    setState((previous) => ({ data: previous.data, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => void (live = false);
    // `load` is a new closure on every render; `deps` names what it really depends on.
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** The API's problem `detail` (and each failing field), or a plain sentence for anything else. */
export function ProblemAlert({ error }: { error: unknown }) {
  if (!error) return null;
  const problem = error instanceof ApiError ? error.problem : undefined;
  return (
    <div class="alert alert-error" role="alert">
      <p>{problem ? problem.detail : 'Something went wrong. Reload the page and try again.'}</p>
      {problem?.errors && problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((e) => (
            <li key={e.path}>
              <code>{e.path}</code> {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="alert alert-ok" role="status">
      {children}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="muted" role="status">
      {what}…
    </p>
  );
}

/** Wraps a page's resource: the error, a first-load placeholder, or the content. */
export function Loaded<T>({ resource, children }: { resource: Resource<T>; children: (data: T) => ComponentChildren }) {
  if (resource.error) return <ProblemAlert error={resource.error} />;
  if (resource.data === undefined) return <Loading />;
  return <>{children(resource.data)}</>;
}

const badgeTone: Record<string, string> = {
  approved: 'ok',
  provisioned: 'ok',
  succeeded: 'ok',
  active: 'ok',
  installed: 'ok',
  released: 'wait',
  queued: 'wait',
  pending: 'wait',
  processing: 'wait',
  failed: 'bad',
  rejected: 'bad',
  suspended: 'bad',
  revoked: 'bad',
  cancelled: 'muted',
  depleted: 'muted',
  expired: 'muted',
  inactive: 'muted',
  no_endpoint: 'muted',
};

export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${badgeTone[value] ?? 'muted'}`}>{humanize(value)}</span>;
}

export interface Column<T> {
  label: string;
  render: (row: T) => ComponentChildren;
  /** Right-aligned (amounts). */
  numeric?: boolean;
}

/** A table that becomes one card per row on a narrow screen (each cell labelled by its column, in CSS). */
export function DataTable<T>({ caption, columns, rows, rowKey, empty }: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string; empty: string }) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <table class="data">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c.label} class={c.numeric ? 'num' : undefined}>
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((c) => (
              <td key={c.label} data-label={c.label} class={c.numeric ? 'num' : undefined}>
                {c.render(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Previous / next links that keep the route's filters. */
export function Pager({ pagination, route }: { pagination: Pagination; route: Route }) {
  const { page, totalPages, total } = pagination;
  if (totalPages <= 1) return <p class="muted pager">{total === 1 ? '1 item' : `${total} items`}</p>;
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? <a href={withParams(route, { page: page - 1 })}>← Previous</a> : <span />}
      <span>
        Page {page} of {totalPages} ({total} items)
      </span>
      {page < totalPages ? <a href={withParams(route, { page: page + 1 })}>Next →</a> : <span />}
    </nav>
  );
}

/** A labelled select that navigates when changed (list filters). */
export function FilterSelect({ id, label, value, options, onChange }: { id: string; label: string; value: string; options: Array<[string, string]>; onChange: (value: string) => void }) {
  return (
    <div class="field field-inline">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
        {options.map(([optionValue, text]) => (
          <option key={optionValue} value={optionValue}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'label' | 'onInput' | 'value'> & {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  hint?: string;
};

/** An input with its label and an optional hint tied to it (aria-describedby). */
export function TextField({ id, label, value, onInput, hint, ...rest }: InputProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} value={value} onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)} aria-describedby={hint ? `${id}-hint` : undefined} {...rest} />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/** Copies text to the clipboard; says so, or asks the reader to copy by hand when the browser refuses. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = () =>
    navigator.clipboard?.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    ) ?? setState('failed');
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={copy}>
        {label}
      </button>
      <span role="status" class="muted">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copy it by hand: select the text.' : ''}
      </span>
    </span>
  );
}
