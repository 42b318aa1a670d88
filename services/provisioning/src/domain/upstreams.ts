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
