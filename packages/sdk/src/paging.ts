import type { paths } from './generated/partner.js';

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type OkBody<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? JsonOf<R> : never;

/** Every GET path whose answer is a §3 page (`{ data, pagination }`): new paged lists join by themselves. */
export type PagedPath = {
  [P in keyof paths]: OkBody<P> extends { data: unknown[]; pagination: unknown } ? P : never;
}[keyof paths];

export type ItemOf<P extends PagedPath> = OkBody<P> extends { data: (infer T)[] } ? T : never;
export type PageOf<P extends PagedPath> = OkBody<P>;
export type QueryOf<P extends PagedPath> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;
/** A list's filters: everything but `page`, which the iterator turns. */
export type FiltersOf<P extends PagedPath> = Omit<QueryOf<P>, 'page'>;
