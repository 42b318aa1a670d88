/**
 * What runs of each service of the list, in Kubernetes and in Compose: the
 * service's own pods and, for each service on a test order's path
 * (`testModeServices`, scripts/launcher/services.ts), test mode's replica
 * (contract §14, "nothing a test key sends can … slow live data";
 * docs/architecture.md, "Test mode's own lane"). A replica IS the service:
 * same image, command, secrets, gRPC identity (its certificate's common name
 * stays the service's: callers check the name, not the address), NATS user
 * and database role. Only its name (`<service>-test`), its lane
 * (EVENT_LANES=test), the addresses it calls and its capacity differ. This is
 * the topology `npm start` runs (withTestModeReplicas), as deployment objects.
 */
import type { Lane } from '@esim/events';
import { constantCase, testModeServices, testReplicaName, type PortKind, type ServiceEntry } from '../launcher/services.js';
import { callsOf, testModeCallsOf } from './calls.js';

export interface Workload {
  /** Its own name: the Deployment, Service, budget and policy, the pods' app.kubernetes.io/name, Compose's service. */
  name: string;
  /** The service it runs: SERVICE, OTEL_SERVICE_NAME, ports, secrets, gRPC certificate and database role are this entry's. */
  entry: ServiceEntry;
  /** The one saga lane it consumes; absent for a shared service (catalog, partners…), which serves both. */
  lane?: Lane;
}

/** The pod label naming a workload's lane (absent on shared services), for `kubectl -l` and dashboards. */
export const laneLabel = 'esim-platform/lane';

const replicated = (entry: ServiceEntry) => (testModeServices as readonly string[]).includes(entry.name);

/** Every workload of the list, each replica right after its service (so files and Compose read in pairs). */
export function workloadsOf(list: readonly ServiceEntry[]): Workload[] {
  return list.flatMap((entry): Workload[] =>
    replicated(entry) ? [{ name: entry.name, entry, lane: 'live' }, { name: testReplicaName(entry.name), entry, lane: 'test' }] : [{ name: entry.name, entry }],
  );
}

/** The Deployments running a service's code: its own and, if test mode replicates it, `<service>-test`. */
export const runnersOf = (service: string, list: readonly ServiceEntry[]) => workloadsOf(list).filter((workload) => workload.entry.name === service);

/** The workload a name stands for (a service's own name or its replica's). */
export function workloadNamed(name: string, list: readonly ServiceEntry[]): Workload | undefined {
  return workloadsOf(list).find((workload) => workload.name === name);
}

/**
 * Pods per workload in the base. Test mode's capacity is fixed, not scaled
 * with its load: one pod, whose CPU limit (resources.ts) is the cap. An
 * operator who sells more test traffic raises it with a patch.
 */
export const replicasOf = (workload: Workload) => (workload.lane === 'test' ? 1 : 2);

/** `wallet` → `wallet-test:50053`: where a test replica's gRPC API is found (its Service, or Compose's name). */
function testAddress(target: ServiceEntry): string {
  return `${testReplicaName(target.name)}:${target.ports.grpc}`;
}

/**
 * The literal variables a workload gets beyond what every service gets (the
 * ConfigMap, Compose's shared block): its lane; for a replica, every
 * replicated gRPC API at its replica (so a test order's calls stay on test
 * capacity: orders-test reserves on wallet-test); for a caller that declares
 * `<NAME>_TEST_ADDR` (the gateway), those addresses.
 */
export function workloadEnv(workload: Workload, list: readonly ServiceEntry[]): Record<string, string> {
  const env: Record<string, string> = {};
  if (workload.lane) env.EVENT_LANES = workload.lane;
  if (workload.lane === 'test') {
    for (const target of list.filter((e) => replicated(e) && e.ports.grpc !== undefined)) env[`${constantCase(target.name)}_ADDR`] = testAddress(target);
  } else {
    for (const target of testModeCallsOf(workload.entry, list).filter(replicated)) env[`${constantCase(target.name)}_TEST_ADDR`] = testAddress(target);
  }
  return env;
}

export interface WorkloadCall {
  /** The workload called. */
  target: Workload;
  port: PortKind;
}

/**
 * Whom a workload dials: its service's calls (calls.ts), with a replica's
 * gRPC calls to a replicated service going to that service's replica (the
 * `*_ADDR` workloadEnv overrides); URL and callback calls (the supplier
 * simulator) are the shared service's. A service that declares
 * `<NAME>_TEST_ADDR` also dials those replicas.
 */
export function workloadCalls(workload: Workload, list: readonly ServiceEntry[]): WorkloadCall[] {
  const workloads = workloadsOf(list);
  const named = (name: string) => workloads.find((candidate) => candidate.name === name)!;
  const calls = callsOf(workload.entry, list).map(({ target, port }) => {
    const toReplica = workload.lane === 'test' && port === 'grpc' && replicated(target);
    return { target: named(toReplica ? testReplicaName(target.name) : target.name), port };
  });
  if (workload.lane === 'test') return calls;
  const testCalls = testModeCallsOf(workload.entry, list)
    .filter(replicated)
    .map((target) => ({ target: named(testReplicaName(target.name)), port: 'grpc' as const }));
  return [...calls, ...testCalls];
}

/** The workloads that dial `workload`, with the port they dial. */
export function workloadCallers(workload: Workload, list: readonly ServiceEntry[]): Array<{ caller: Workload; port: PortKind }> {
  return workloadsOf(list).flatMap((caller) =>
    workloadCalls(caller, list)
      .filter((call) => call.target.name === workload.name)
      .map((call) => ({ caller, port: call.port })),
  );
}
