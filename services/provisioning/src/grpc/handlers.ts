import type { ServiceHandlers } from '@esim/grpc';
import type { Pool } from '@esim/postgres';
import { provisioningV1 } from '@esim/proto';
import type { Logger } from '@esim/telemetry';
import { getProvisioning, type ProvisioningView } from '../domain/getProvisioning.js';
import { revokeBundle } from '../domain/revokeBundle.js';
import { setSuspended } from '../domain/setSuspended.js';
import type { Upstreams } from '../domain/upstreams.js';

type ProvisioningMethods = (typeof provisioningV1.ProvisioningService)['method'];

const states: Record<ProvisioningView['state'], provisioningV1.ProvisioningState> = {
  unknown: provisioningV1.ProvisioningState.UNKNOWN,
  in_progress: provisioningV1.ProvisioningState.IN_PROGRESS,
  succeeded: provisioningV1.ProvisioningState.SUCCEEDED,
  failed: provisioningV1.ProvisioningState.FAILED,
};

/** Transport only: each RPC converts its message, calls one use case, converts the answer. */
export function provisioningHandlers(deps: { upstreams: Upstreams; pool: Pool; logger: Logger }): ServiceHandlers<ProvisioningMethods> {
  return {
    async revokeBundle(request, context) {
      const outcome = await revokeBundle(deps, request, context.deadline);
      if (outcome.revoked === true) return { outcome: provisioningV1.RevokeOutcome.REVOKED, detail: '' };
      if (outcome.revoked === 'unconfirmed') return { outcome: provisioningV1.RevokeOutcome.UNCONFIRMED, detail: outcome.detail };
      return { outcome: provisioningV1.RevokeOutcome.NOT_REVOKABLE, detail: outcome.detail };
    },
    async setSuspended(request) {
      const outcome = await setSuspended(deps, { iccid: request.iccid, suspended: request.suspended });
      return outcome.done
        ? { outcome: provisioningV1.SuspensionOutcome.DONE, suspended: outcome.suspended, detail: '' }
        : { outcome: provisioningV1.SuspensionOutcome.NOT_SUSPENDABLE, suspended: false, detail: outcome.detail };
    },
    async getProvisioning(request) {
      const view = await getProvisioning({ db: deps.pool, upstreams: deps.upstreams, logger: deps.logger }, request.orderId);
      if (view.state === 'succeeded') {
        const { reference, iccid, smdpAddress, matchingId, activationCode } = view.esim;
        return { state: states.succeeded, esim: { supplierReference: reference, iccid, smdpAddress, matchingId, activationCode }, failureReason: '' };
      }
      return { state: states[view.state], failureReason: view.state === 'failed' ? view.reason : '' };
    },
  };
}
