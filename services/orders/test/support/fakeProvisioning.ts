import { AppError } from '@esim/errors';
import { addService, startGrpcServer, type GrpcServer, type ServiceHandlers, devTlsFiles } from '@esim/grpc';
import { provisioningV1 } from '@esim/proto';

type ProvisioningMethods = (typeof provisioningV1.ProvisioningService)['method'];

/**
 * How the fake answers RevokeBundle:
 * - 'revoke': REVOKED (idempotent, as the supplier);
 * - 'refuse': NOT_REVOKABLE with `refusal` as detail;
 * - 'down': UNAVAILABLE (the supplier could not be reached).
 * - 'late': the supplier revokes but its answer comes too late: UNCONFIRMED (what provisioning answers then).
 */
export type RevokeMode = 'revoke' | 'refuse' | 'down' | 'late';

/** What the fake's GetProvisioning answers for one order (an order it has no answer for is UNKNOWN). */
export type FakeProvisioningState =
  | { state: 'in_progress' }
  | { state: 'failed'; reason: string }
  | { state: 'succeeded'; esim: { supplierReference: string; iccid: string; smdpAddress: string; matchingId: string; activationCode: string } };

export interface FakeProvisioning {
  address: string;
  /** GetProvisioning's answers, by order id. */
  states: Map<string, FakeProvisioningState>;
  /** Every GetProvisioning call received (order ids), in order. */
  stateCalls: string[];
  mode: RevokeMode;
  refusal: string;
  /** ControlTestEsim's answer (the simulator's view after the action); undefined: UNAVAILABLE. */
  simulated: { status: string; bundles: Array<{ reference: string; dataUsedMb: number; status: string }> } | undefined;
  /** Every ControlTestEsim call received, in order. */
  controlCalls: { accountId: string; iccid: string; action: number; addMb: number }[];
  /** Every RevokeBundle call received, in order. */
  revokeCalls: { reference: string; iccid: string; firstBundle: boolean }[];
  /** References revoked at the fake supplier. */
  revoked: Set<string>;
  stop(): Promise<void>;
}

/** An in-memory ProvisioningService standing in for provisioning and the supplier behind it: RevokeBundle by `mode`, GetProvisioning from `states`. */
export async function startFakeProvisioning(): Promise<FakeProvisioning> {
  const fake: Omit<FakeProvisioning, 'address' | 'stop'> = {
    mode: 'revoke',
    refusal: 'bundle_used',
    revokeCalls: [],
    revoked: new Set(),
    states: new Map(),
    stateCalls: [],
    simulated: undefined,
    controlCalls: [],
  };
  const S = provisioningV1.ProvisioningState;
  const handlers: ServiceHandlers<ProvisioningMethods> = {
    async revokeBundle(request) {
      fake.revokeCalls.push({ reference: request.reference, iccid: request.iccid, firstBundle: request.firstBundle });
      if (fake.mode === 'down') throw new AppError('UNAVAILABLE', 'the fake supplier is down');
      if (fake.mode === 'refuse') return { outcome: provisioningV1.RevokeOutcome.NOT_REVOKABLE, detail: fake.refusal };
      fake.revoked.add(request.reference);
      if (fake.mode === 'late') return { outcome: provisioningV1.RevokeOutcome.UNCONFIRMED, detail: 'no answer within 2000 ms' };
      return { outcome: provisioningV1.RevokeOutcome.REVOKED, detail: '' };
    },
    async controlTestEsim(request) {
      fake.controlCalls.push({ accountId: request.accountId, iccid: request.iccid, action: request.action, addMb: request.addMb });
      if (!fake.simulated) throw new AppError('UNAVAILABLE', 'the fake simulator is down');
      return fake.simulated;
    },
    async setSuspended(request) {
      if (fake.mode === 'down') throw new AppError('UNAVAILABLE', 'the fake provider is down');
      if (fake.mode === 'refuse') return { outcome: provisioningV1.SuspensionOutcome.NOT_SUSPENDABLE, suspended: false, detail: 'esim_revoked' };
      return { outcome: provisioningV1.SuspensionOutcome.DONE, suspended: request.suspended, detail: '' };
    },
    async getProvisioning(request) {
      fake.stateCalls.push(request.orderId);
      const known = fake.states.get(request.orderId);
      if (!known) return { state: S.UNKNOWN, failureReason: '' };
      if (known.state === 'in_progress') return { state: S.IN_PROGRESS, failureReason: '' };
      if (known.state === 'failed') return { state: S.FAILED, failureReason: known.reason };
      return { state: S.SUCCEEDED, esim: known.esim, failureReason: '' };
    },
  };
  const server: GrpcServer = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    // The real provisioning service's identity: callers under test verify it (mutual TLS).
    tls: devTlsFiles('provisioning'),
    register: (s) => addService(s, provisioningV1.ProvisioningService, handlers, () => {}),
  });
  return Object.assign(fake, { address: `127.0.0.1:${server.port}`, stop: () => server.stop(1_000) });
}
