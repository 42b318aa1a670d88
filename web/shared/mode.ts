/**
 * Test mode's rules in the apps (contract §14), apart from the components
 * so they are unit-tested without a DOM: which query a mode's reads carry,
 * which client a mode's pages use, whose account a row of test data is.
 */
export type Mode = 'live' | 'test';

/** What `api.ts` calls a query; spelled out here so this file imports nothing of the DOM (the unit tests type-check it for Node). */
type Query = Record<string, string | number | undefined | null>;

/** web/shared/api.ts's Client, as far as a mode changes it. */
interface ModeClient {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  postForStatus<T>(path: string, body?: unknown): Promise<{ status: number; body: T }>;
  delete(path: string): Promise<void>;
  getText(path: string): Promise<string>;
}

/** The query every call of a mode carries: nothing in live (the API's default), `livemode=false` in test. */
export function modeQuery(mode: Mode): Query {
  return mode === 'test' ? { livemode: 'false' } : {};
}

/**
 * The client the pages of one mode use. In test mode every call under
 * `prefixes` carries `livemode=false`: the portal's door reads the mode
 * from the query for reads and writes alike (a pending account passes it
 * only in test mode), so a test page's button acts where its data came
 * from. Paths outside the prefixes (the account itself, test keys) go out
 * unchanged.
 */
export function clientForMode<C extends ModeClient>(client: C, mode: Mode, prefixes: string[]): C {
  if (mode === 'live') return client;
  const covered = (path: string) => {
    const bare = path.split('?')[0]!;
    return prefixes.some((prefix) => bare === prefix || bare.startsWith(`${prefix}/`));
  };
  const withMode = (path: string) => (covered(path) ? `${path}${path.includes('?') ? '&' : '?'}livemode=false` : path);
  return {
    ...client,
    get: <T>(path: string, query?: Query) => client.get<T>(path, covered(path) ? { ...query, ...modeQuery(mode) } : query),
    post: <T>(path: string, body?: unknown) => client.post<T>(withMode(path), body),
    patch: <T>(path: string, body: unknown) => client.patch<T>(withMode(path), body),
    postForStatus: <T>(path: string, body?: unknown) => client.postForStatus<T>(withMode(path), body),
    delete: (path: string) => client.delete(withMode(path)),
    getText: (path: string) => client.getText(withMode(path)),
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
