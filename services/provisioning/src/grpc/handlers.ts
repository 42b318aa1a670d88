import type { ServiceHandlers } from '@esim/grpc';
import { AppError } from '@esim/errors';
import type { Pool } from '@esim/postgres';
import { provisioningV1 } from '@esim/proto';
import type { Logger } from '@esim/telemetry';
import { controlTestEsim } from '../domain/controlTestEsim.js';
import { getProvisioning, type ProvisioningView } from '../domain/getProvisioning.js';
import { revokeBundle } from '../domain/revokeBundle.js';
import { setSuspended } from '../domain/setSuspended.js';
import type { UpstreamsByMode } from '../domain/upstreams.js';
import type { SimulatorControl, TestEsimAction } from '../simulator/simulatorControl.js';

type ProvisioningMethods = (typeof provisioningV1.ProvisioningService)['method'];

const states: Record<ProvisioningView['state'], provisioningV1.ProvisioningState> = {
  unknown: provisioningV1.ProvisioningState.UNKNOWN,
  in_progress: provisioningV1.ProvisioningState.IN_PROGRESS,
  succeeded: provisioningV1.ProvisioningState.SUCCEEDED,
  failed: provisioningV1.ProvisioningState.FAILED,
};

const A = provisioningV1.TestEsimAction;

function testAction(action: provisioningV1.TestEsimAction, addMb: number): TestEsimAction {
  switch (action) {
    case A.INSTALL:
      return { kind: 'install' };
    case A.USAGE:
      return { kind: 'usage', addMb };
    case A.EXPIRE:
      return { kind: 'expire' };
    case A.DELETE:
      return { kind: 'delete' };
    default:
      throw new AppError('VALIDATION_ERROR', 'action must be install, usage, expire or delete.');
  }
}

/**
 * Transport only: each RPC converts its message, picks the upstreams of the
 * account's mode (contract §14), calls one use case, converts the answer.
 */
export function provisioningHandlers(deps: { upstreams: UpstreamsByMode; control: SimulatorControl; pool: Pool; logger: Logger }): ServiceHandlers<ProvisioningMethods> {
  return {
    async revokeBundle(request, context) {
      const upstreams = deps.upstreams.of(request.accountId);
      const outcome = await revokeBundle({ ...deps, upstreams }, request, context.deadline);
      if (outcome.revoked === true) return { outcome: provisioningV1.RevokeOutcome.REVOKED, detail: '' };
      if (outcome.revoked === 'unconfirmed') return { outcome: provisioningV1.RevokeOutcome.UNCONFIRMED, detail: outcome.detail };
      return { outcome: provisioningV1.RevokeOutcome.NOT_REVOKABLE, detail: outcome.detail };
    },
    async setSuspended(request) {
      const upstreams = deps.upstreams.of(request.accountId);
      const outcome = await setSuspended({ upstreams, logger: deps.logger }, { iccid: request.iccid, suspended: request.suspended });
      return outcome.done
        ? { outcome: provisioningV1.SuspensionOutcome.DONE, suspended: outcome.suspended, detail: '' }
        : { outcome: provisioningV1.SuspensionOutcome.NOT_SUSPENDABLE, suspended: false, detail: outcome.detail };
    },
    async getProvisioning(request) {
      const upstreams = deps.upstreams.of(request.accountId);
      const view = await getProvisioning({ db: deps.pool, upstreams, logger: deps.logger }, request.orderId);
      if (view.state === 'succeeded') {
        const { reference, iccid, smdpAddress, matchingId, activationCode } = view.esim;
        return { state: states.succeeded, esim: { supplierReference: reference, iccid, smdpAddress, matchingId, activationCode }, failureReason: '' };
      }
      return { state: states[view.state], failureReason: view.state === 'failed' ? view.reason : '' };
    },
    async controlTestEsim(request, context) {
      const action = testAction(request.action, request.addMb);
      const esim = await controlTestEsim(deps, { accountId: request.accountId, iccid: request.iccid, action }, context.deadline);
      return { status: esim.status, bundles: esim.bundles };
    },
  };
}
