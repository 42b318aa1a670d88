/**
 * The SM-DP+ port (contract §8): what provisioning asks of whoever makes the
 * eSIM profiles. Today one adapter speaks GSMA ES2+ (es2plusClient.ts); a
 * second vendor's API, or a reseller's, is one more adapter of this port.
 * Every method answers a value, never throws: an SM-DP+ that cannot be
 * reached, answers garbage, or refuses is an outcome the use case sorts.
 */

/** Why a call gave no usable answer, for the operator's record. `refused` is an SM-DP+ saying no. */
export type SmdpFailureCause = 'refused' | 'unavailable' | 'timeout' | 'network_error' | 'tls_error' | 'bad_response';

export type SmdpFailure = { kind: 'transient' | 'permanent'; cause: SmdpFailureCause; statusCode: number | null; detail: string };

export type SmdpResult<T> = ({ kind: 'ok'; statusCode: number } & T) | SmdpFailure;

/** The same call id on a retry of the same call, so the SM-DP+ can recognise it (SGP.22 functionCallIdentifier). */
export interface CallId {
  callId: string;
}

export interface SmdpPort {
  /** Reserves a profile of `profileType`; on a retry with the same call id, the same profile. */
  downloadOrder(request: CallId & { profileType: string }): Promise<SmdpResult<{ iccid: string }>>;
  /** Confirms and releases (`releaseFlag: true`) the reserved profile: its matching id and the SM-DP+ address for the activation code. */
  confirmOrder(request: CallId & { iccid: string }): Promise<SmdpResult<{ matchingId: string; smdpAddress: string; eid: string | null }>>;
  /** Cancels an order never downloaded; the profile ends `finalProfileStatusIndicator`. */
  cancelOrder(request: CallId & { iccid: string; matchingId?: string; finalProfileStatusIndicator: 'Available' | 'Unavailable' }): Promise<SmdpResult<object>>;
}

/** `LPA:1$<SM-DP+ address>$<matching id>`, the activation code of GSMA SGP.22 (§4.1). */
export function activationCodeOf(smdpAddress: string, matchingId: string): string {
  return `LPA:1$${smdpAddress}$${matchingId}`;
}
