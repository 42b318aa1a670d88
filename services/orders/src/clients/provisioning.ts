import type { EventData } from '@esim/events';
import { createClient, downstreamDeadline, isDeadlineExceeded, type TlsFiles } from '@esim/grpc';
import { provisioningV1 } from '@esim/proto';

/**
 * `unconfirmed`: the revoke was asked but its answer did not arrive in time
 * (provisioning's UNCONFIRMED, or our own deadline passed with the call under
 * way): the supplier may have revoked. The cancel saga keeps its intent and
 * asks again (idempotent) until it knows (#23).
 */
export type RevokeOutcome = { revoked: true } | { revoked: false; detail: string } | { revoked: 'unconfirmed'; detail: string };

/** What provisioning knows of a paid order; `succeeded` carries what provisioning.succeeded does. */
export type ProvisioningState =
  | { state: 'unknown' }
  | { state: 'in_progress' }
  | { state: 'succeeded'; esim: EventData<'provisioning.succeeded'> }
  | { state: 'failed'; reason: string };

export type TestEsimAction = { kind: 'install' } | { kind: 'usage'; addMb: number } | { kind: 'expire' } | { kind: 'delete' };

/** The simulator's view of a test eSIM after a helper's action. */
export interface SimulatedEsim {
  status: string;
  bundles: Array<{ reference: string; dataUsedMb: number; status: string }>;
}

const testActions = {
  install: provisioningV1.TestEsimAction.INSTALL,
  usage: provisioningV1.TestEsimAction.USAGE,
  expire: provisioningV1.TestEsimAction.EXPIRE,
  delete: provisioningV1.TestEsimAction.DELETE,
} as const;

export interface Provisioning {
  /**
   * Revokes the bundle an order bought (for a first order, the whole eSIM).
   * Idempotent. `revoked: false` when the supplier refuses (used, installed);
   * UNAVAILABLE when the supplier or provisioning could not be reached.
   */
  revokeBundle(request: { accountId: string; reference: string; iccid: string; firstBundle: boolean; deadline?: number }): Promise<RevokeOutcome>;
  /** What provisioning knows of the order (GetProvisioning); UNAVAILABLE when it or the supplier cannot answer now. */
  provisioningState(orderId: string, accountId: string): Promise<ProvisioningState>;
  /** Stops or restarts data on the eSIM at the connectivity provider; `done: false` when it refuses (unknown, revoked); UNAVAILABLE when unreachable. */
  setSuspended(request: { accountId: string; iccid: string; suspended: boolean }): Promise<{ done: true; suspended: boolean } | { done: false; detail: string }>;
  /**
   * Test mode's helpers (§14): the test-mode simulator plays the traveller
   * on a test account's eSIM; answers the simulator's view once the platform
   * accepted its notifications. ESIM_NOT_FOUND, TEST_MODE_ONLY, UNAVAILABLE.
   */
  controlTestEsim(request: { accountId: string; iccid: string; action: TestEsimAction; deadline?: number }): Promise<SimulatedEsim>;
  close(): void;
}

/**
 * Bounded: a partner's cancel waits at most this long on the supplier before
 * hearing 503. Provisioning bounds its supplier call by this deadline (less a
 * margin), so its answer (REVOKED, NOT_REVOKABLE, UNCONFIRMED) arrives first.
 */
const revokeDeadlineMs = 10_000;
/** A succeeded order's answer asks the supplier again (SUPPLIER_TIMEOUT_MS, 10 s by default); only the sweeper waits on it. */
const stateDeadlineMs = 15_000;
/** A test helper: the simulator acts and waits for the platform's 202s. */
const controlDeadlineMs = 20_000;

export function provisioningClient(address: string, tls?: TlsFiles): Provisioning {
  const client = createClient(provisioningV1.ProvisioningService, address, { tls });
  return {
    async revokeBundle(request) {
      let answer;
      try {
        const { deadline, ...call } = request;
        answer = await client.revokeBundle(call, { deadlineMs: revokeDeadlineMs, deadline: downstreamDeadline(deadline) });
      } catch (error) {
        // Our deadline passed with the call under way: provisioning may have reached the supplier.
        if (isDeadlineExceeded(error)) return { revoked: 'unconfirmed', detail: 'no answer from provisioning within the deadline' };
        throw error;
      }
      if (answer.outcome === provisioningV1.RevokeOutcome.REVOKED) return { revoked: true };
      if (answer.outcome === provisioningV1.RevokeOutcome.NOT_REVOKABLE) return { revoked: false, detail: answer.detail };
      if (answer.outcome === provisioningV1.RevokeOutcome.UNCONFIRMED) return { revoked: 'unconfirmed', detail: answer.detail };
      throw new Error(`RevokeBundle answered outcome ${answer.outcome}`);
    },
    async provisioningState(orderId, accountId) {
      const answer = await client.getProvisioning({ orderId, accountId }, { deadlineMs: stateDeadlineMs });
      const S = provisioningV1.ProvisioningState;
      switch (answer.state) {
        case S.UNKNOWN:
          return { state: 'unknown' };
        case S.IN_PROGRESS:
          return { state: 'in_progress' };
        case S.FAILED:
          return { state: 'failed', reason: answer.failureReason };
        case S.SUCCEEDED: {
          if (!answer.esim) throw new Error(`GetProvisioning answered SUCCEEDED without an eSIM for ${orderId}`);
          const { supplierReference, iccid, smdpAddress, matchingId, activationCode } = answer.esim;
          return { state: 'succeeded', esim: { orderId, supplierReference, iccid, smdpAddress, matchingId, activationCode } };
        }
        default:
          throw new Error(`GetProvisioning answered state ${answer.state}`);
      }
    },
    async setSuspended(request) {
      const answer = await client.setSuspended(request, { deadlineMs: revokeDeadlineMs });
      if (answer.outcome === provisioningV1.SuspensionOutcome.DONE) return { done: true, suspended: answer.suspended };
      if (answer.outcome === provisioningV1.SuspensionOutcome.NOT_SUSPENDABLE) return { done: false, detail: answer.detail };
      throw new Error(`SetSuspended answered outcome ${answer.outcome}`);
    },
    async controlTestEsim({ accountId, iccid, action, deadline }) {
      const answer = await client.controlTestEsim(
        { accountId, iccid, action: testActions[action.kind], addMb: action.kind === 'usage' ? action.addMb : 0 },
        { deadlineMs: controlDeadlineMs, deadline: downstreamDeadline(deadline) },
      );
      return { status: answer.status, bundles: answer.bundles.map(({ reference, dataUsedMb, status }) => ({ reference, dataUsedMb, status })) };
    },
    close: () => client.close(),
  };
}
