import type { Client } from 'openapi-fetch';
import type { Esim, LedgerEntry } from './client.js';
import type { paths } from './generated/partner.js';

/** An answer of openapi-fetch, turned into its body or a thrown EsimApiError by the client's `unwrap`. */
type Unwrap = <T>(result: { data?: T; error?: unknown; response: Response }) => T;

/**
 * openapi-fetch typed by the generated `paths`, called on a path that may
 * not be in this build's document yet: the test routes (§14) join it with
 * `npm run sdk:gen`, and the call is the same either way.
 */
type UntypedPost = (path: string, init: { params?: { path?: Record<string, string> }; body?: unknown }) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Test mode's helpers (contract §14), for a client made with a test key
 * (`sk_test_…`): fund the test wallet, and play the traveller's phone and
 * the network for a test eSIM. Each eSIM helper answers the eSIM once the
 * simulated supplier's notifications are applied, and your test webhook URL
 * receives the same events as in live (`esim.installed`,
 * `esim.usage_threshold`, `esim.bundle_expired`, `esim.deleted`). With a live
 * key every helper throws `EsimApiError` with code `TEST_MODE_ONLY` (403).
 */
export function testHelpers(raw: Client<paths>, unwrap: Unwrap) {
  const post = raw.POST as unknown as UntypedPost;
  const esimHelper = async (iccid: string, action: 'install' | 'usage' | 'expire' | 'delete', body?: unknown): Promise<Esim> =>
    unwrap(await post(`/api/v1/partner/test/esims/{iccid}/${action}`, { params: { path: { iccid } }, body })) as Esim;
  return {
    /** Credits the test wallet with `amount` minor units (1 – 100 000 000); answers the `topup` ledger entry. */
    creditWallet: async (amount: number): Promise<LedgerEntry> => unwrap(await post('/api/v1/partner/test/wallet/credit', { body: { amount } })) as LedgerEntry,
    /** The traveller installs the eSIM on a phone: `esim.installed`. */
    install: (iccid: string) => esimHelper(iccid, 'install'),
    /** The network reports `addMb` more megabytes used: `esim.usage_threshold` at 80 % and 100 % of a bundle. */
    addUsage: (iccid: string, addMb: number) => esimHelper(iccid, 'usage', { addMb }),
    /** The current bundle reaches its end date: `esim.bundle_expired` (and the next queued bundle starts). */
    expire: (iccid: string) => esimHelper(iccid, 'expire'),
    /** The traveller deletes the profile from the phone: `esim.deleted`. */
    delete: (iccid: string) => esimHelper(iccid, 'delete'),
  };
}

export type TestHelpers = ReturnType<typeof testHelpers>;
