import { useEffect, useState } from 'preact/hooks';
import { withQuery, type Query } from './api.js';

/**
 * Hash routes (`#/orders/ord_…?status=failed`): the server serves one
 * index.html per app and never needs to know the apps' pages, and a
 * reload or a shared link opens the same page.
 */
export interface Route {
  /** The path without the query: a page is keyed by it, so moving to another page opens it afresh (a filter only reloads its list). */
  page: string;
  /** Path segments: `#/orders/ord_1` → ['orders', 'ord_1']. */
  parts: string[];
  query: URLSearchParams;
}

function current(): Route {
  const [path = '', search = ''] = window.location.hash.replace(/^#/, '').split('?');
  return { page: path, parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** `href('orders', id)` → `#/orders/ord_1`; with a query, its non-empty values. */
export function href(...parts: Array<string | Query>): string {
  const query = typeof parts.at(-1) === 'object' ? (parts.pop() as Query) : {};
  return `#${withQuery(`/${(parts as string[]).map(encodeURIComponent).join('/')}`, query)}`;
}

export function navigate(to: string): void {
  window.location.hash = to.replace(/^#/, '');
}

/** The page number of a route (`?page=`), 1 when absent or nonsense. */
export function pageOf(route: Route): number {
  const page = Number(route.query.get('page'));
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** The same route with some query values replaced (a filter resets paging unless `page` is given). */
export function withParams(route: Route, changes: Query): string {
  const query: Query = Object.fromEntries(route.query.entries());
  if (!('page' in changes)) delete query.page;
  return href(...route.parts, { ...query, ...changes });
}
