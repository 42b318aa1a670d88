import { validationError } from '@esim/errors';
import { isAccountId, livemodeOf } from '@esim/ids';
import type { ConnectivityPort } from '../connectivity/connectivityClient.js';
import type { SmdpPort } from '../smdp/smdp.js';

/**
 * Which upstream serves a plan: the SM-DP+ is chosen by the plan's
 * `profileType`, the connectivity provider by its `supplierSku` (operator
 * data, contract §8). One of each is configured today, so every plan maps
 * to them; a second SM-DP+ vendor or a reseller-aggregator is one more
 * adapter and one more rule here.
 */
export interface Upstreams {
  smdpFor(profileType: string): SmdpPort;
  connectivityFor(sku: string): ConnectivityPort;
  /** The profile type asked for when the order names none. */
  defaultProfileType: string;
}

export function singleUpstreams(smdp: SmdpPort, connectivity: ConnectivityPort, defaultProfileType: string): Upstreams {
  return { smdpFor: () => smdp, connectivityFor: () => connectivity, defaultProfileType };
}

/**
 * The upstreams of each mode (contract §14): a test account's orders
 * (`ptn_X_test`) are served by TEST_MODE_SMDP_ES2_URL and
 * TEST_MODE_CONNECTIVITY_URL (the simulator), a live account's by
 * SMDP_ES2_URL and CONNECTIVITY_URL, in production too. The mode is read off
 * the account id the order (or the RPC) carries, never guessed, so one mode's
 * call cannot reach the other's upstream by omission.
 */
export interface UpstreamsByMode {
  live: Upstreams;
  test: Upstreams;
  /** The account's upstreams; no account id (a caller older than test mode) is live, as every order then was. */
  of(accountId: string | undefined): Upstreams;
}

export function upstreamsByMode(live: Upstreams, test: Upstreams): UpstreamsByMode {
  return {
    live,
    test,
    of(accountId) {
      if (accountId === undefined || accountId === '') return live;
      if (!isAccountId(accountId)) throw validationError([{ path: 'accountId', message: 'must be an account id (ptn_… or ptn_…_test)' }]);
      return livemodeOf(accountId) ? live : test;
    },
  };
}
