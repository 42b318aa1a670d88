/**
 * Test mode's rules in the apps (contract §14), apart from the components
 * so they are unit-tested without a DOM: which query a mode's reads carry,
 * which client a mode's pages use, whose account a row of test data is.
 */
export type Mode = 'live' | 'test';

/** What `api.ts` calls a query; spelled out here so this file imports nothing of the DOM (the unit tests type-check it for Node). */
type Query = Record<string, string | number | undefined | null>;

/** The reads of web/shared/api.ts's Client, which a mode changes. */
interface Reads {
  get<T>(path: string, query?: Query): Promise<T>;
  getText(path: string): Promise<string>;
}

/** The query every read of a mode carries: nothing in live (the API's default), `livemode=false` in test. */
export function modeQuery(mode: Mode): Query {
  return mode === 'test' ? { livemode: 'false' } : {};
}

/**
 * The client the pages of one mode use. In test mode each GET under
 * `prefixes` gains `livemode=false` (the read views and their exports);
 * writes pass through unchanged, since the test-only calls have routes
 * of their own and a write that takes a mode says so in its body.
 */
export function clientForMode<C extends Reads>(client: C, mode: Mode, prefixes: string[]): C {
  if (mode === 'live') return client;
  const covered = (path: string) => prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  return {
    ...client,
    get: <T>(path: string, query?: Query) => client.get<T>(path, covered(path) ? { ...query, ...modeQuery(mode) } : query),
    getText: (path: string) => client.getText(covered(path) ? `${path}${path.includes('?') ? '&' : '?'}livemode=false` : path),
  };
}

/**
 * The partner an account id belongs to (`ptn_X_test` → `ptn_X`), for links
 * from a row of test data to its partner. @esim/ids has the same rule but
 * imports node:crypto, which the browser bundles must not carry.
 */
export function partnerOfAccount(accountId: string): string {
  return accountId.endsWith('_test') ? accountId.slice(0, -'_test'.length) : accountId;
}
