import { livemodeOf } from '@esim/ids';

interface Closable {
  close(): void;
  ready(deadlineMs?: number): Promise<void>;
}

/**
 * One client over a service's live replicas and, when a deployment runs
 * them, its test-mode replicas (contract §14: "nothing a test key sends can
 * … slow live data"). Each call goes by the account it names: a request
 * whose `partnerId` is a test account (`ptn_…_test`) goes to the test-mode
 * replicas, everything else (live accounts, operators' calls naming no
 * account) to the live ones. Both run the same code on the same data, so
 * the choice is one of capacity, never of correctness: which replica
 * answers cannot change what it answers.
 */
export function routedByMode<C extends Closable>(live: C, test: C | undefined): C {
  if (!test) return live;
  return new Proxy(live, {
    get(target, property, receiver) {
      if (property === 'close') return () => (live.close(), test.close());
      const method = Reflect.get(target, property, receiver) as unknown;
      if (property === 'ready' || typeof method !== 'function') return method;
      return (request: { partnerId?: unknown } | undefined, ...rest: unknown[]) => {
        const account = request?.partnerId;
        const client = typeof account === 'string' && account !== '' && !livemodeOf(account) ? test : live;
        return (Reflect.get(client, property) as (...args: unknown[]) => unknown).call(client, request, ...rest);
      };
    },
  });
}
