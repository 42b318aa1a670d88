import { reasonCodes, subjectCodes, type StatusCodeData } from '@esim/es2plus';
import { activationCodeOf, newIccid, newMatchingId } from './esimIdentity.js';
import type { SimEsim, SupplierState } from './state.js';

/** An ES2+ function's outcome: its output fields, or a refusal with SGP.22 status codes. */
export type Es2Outcome<T> = { ok: true; data: T } | { ok: false; status: 'Failed' | 'Expired'; data: StatusCodeData };

const fail = (subjectCode: string, reasonCode: string, message: string): Es2Outcome<never> => ({ ok: false, status: 'Failed', data: { subjectCode, reasonCode, message } });

/** Profile types starting with these let tests reach the SM-DP+'s refusals on purpose, as FAIL-/FLAKY- SKUs do on the connectivity side. */
const rejectedPrefix = 'FAIL-';
const flakyPrefix = 'FLAKY-';

/**
 * The SM-DP+ side of the simulator (SGP.22 ES2+ §5.3): DownloadOrder
 * reserves a fresh profile, ConfirmOrder releases it with a matching id,
 * CancelOrder and ReleaseProfile end or release it. A call id seen before on
 * the same function answers what it answered then (the platform's retry of
 * a call whose answer it lost), which is how a real SM-DP+ treats a repeated
 * functionCallIdentifier. Profile types starting FAIL- are refused for good
 * (8.2.5 / 3.9), FLAKY- answer 3.7 (unavailable) to their first two calls.
 */
export class SimulatedSmdp {
  private readonly flakyCalls = new Map<string, number>();

  constructor(
    private readonly state: SupplierState,
    private readonly smdpAddress: string,
  ) {}

  downloadOrder(callId: string, request: { profileType?: string | undefined; iccid?: string | undefined; eid?: string | undefined }): Es2Outcome<{ iccid: string }> {
    const seen = this.state.byCallId(callId);
    if (seen) return { ok: true, data: { iccid: seen.iccid } };
    const profileType = request.profileType ?? '';
    if (request.iccid !== undefined && !request.profileType) {
      const named = this.state.byIccid(request.iccid);
      if (!named) return fail(subjectCodes.iccid, reasonCodes.unknown, 'No such profile.');
      return fail(subjectCodes.iccid, reasonCodes.alreadyInUse, 'The profile is already ordered.');
    }
    if (profileType.startsWith(rejectedPrefix)) return fail(subjectCodes.profileType, reasonCodes.unknown, `Unknown profile type ${profileType}.`);
    if (profileType.startsWith(flakyPrefix)) {
      const calls = (this.flakyCalls.get(callId) ?? 0) + 1;
      this.flakyCalls.set(callId, calls);
      if (calls <= 2) return fail(subjectCodes.profileType, reasonCodes.unavailable, 'No profile of this type is available right now.');
      this.flakyCalls.delete(callId);
    }
    const esim: SimEsim = {
      iccid: newIccid(),
      smdpAddress: this.smdpAddress,
      matchingId: '',
      activationCode: '',
      status: 'allocated',
      profileType,
      eid: request.eid ?? null,
      callIds: [],
      suspended: false,
      bundles: [],
    };
    this.state.addEsim(esim);
    this.state.addCallId(esim, callId);
    return { ok: true, data: { iccid: esim.iccid } };
  }

  confirmOrder(callId: string, request: { iccid: string; releaseFlag: boolean; matchingId?: string | undefined; eid?: string | undefined }): Es2Outcome<{ matchingId: string; smdpAddress: string; eid?: string }> {
    const esim = this.state.byIccid(request.iccid);
    if (!esim || (esim.status === 'allocated' && esim.profileType === '' && esim.callIds.length === 0)) {
      return fail(subjectCodes.iccid, reasonCodes.unknown, 'No such profile.');
    }
    const answer = () => ({ ok: true as const, data: { matchingId: esim.matchingId, smdpAddress: esim.smdpAddress, ...(esim.eid ? { eid: esim.eid } : {}) } });
    if (esim.callIds.includes(callId)) return answer();
    if (esim.status !== 'allocated') return fail(subjectCodes.iccid, reasonCodes.alreadyInUse, 'The profile was already confirmed.');
    esim.matchingId = request.matchingId ?? newMatchingId();
    esim.activationCode = activationCodeOf(esim.smdpAddress, esim.matchingId);
    if (request.eid) esim.eid = request.eid;
    // Without releaseFlag the profile waits for ReleaseProfile; the simulator keeps it allocated until then.
    if (request.releaseFlag) esim.status = 'released';
    this.state.addCallId(esim, callId);
    return answer();
  }

  releaseProfile(callId: string, request: { iccid: string }): Es2Outcome<object> {
    const esim = this.state.byIccid(request.iccid);
    if (!esim) return fail(subjectCodes.iccid, reasonCodes.unknown, 'No such profile.');
    if (esim.callIds.includes(callId)) return { ok: true, data: {} };
    if (esim.status !== 'allocated' || esim.matchingId === '') return fail(subjectCodes.iccid, reasonCodes.refused, 'The profile is not confirmed and unreleased.');
    esim.status = 'released';
    this.state.addCallId(esim, callId);
    return { ok: true, data: {} };
  }

  cancelOrder(callId: string, request: { iccid: string; finalProfileStatusIndicator: string }): Es2Outcome<object> {
    const esim = this.state.byIccid(request.iccid);
    if (!esim) return fail(subjectCodes.iccid, reasonCodes.unknown, 'No such profile.');
    if (esim.callIds.includes(callId) || esim.status === 'cancelled') return { ok: true, data: {} };
    // A profile downloaded to a device can no longer be cancelled (SGP.22 §5.3.3).
    if (esim.status === 'installed' || esim.status === 'deleted') return fail(subjectCodes.iccid, reasonCodes.refused, 'The profile was downloaded.');
    esim.status = 'cancelled';
    for (const bundle of esim.bundles) if (bundle.status === 'queued' || bundle.status === 'active') bundle.status = 'cancelled';
    this.state.addCallId(esim, callId);
    return { ok: true, data: {} };
  }
}
