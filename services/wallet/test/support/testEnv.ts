import type { EventData, EventType } from '@esim/events';
import type { ServiceClient } from '@esim/grpc';
import { newId } from '@esim/ids';
import { walletV1 } from '@esim/proto';
import { createTestInfra, eventually, type PublishOptions, type ServedService, type TestInfra } from '@esim/testing';
import { walletService } from '../../src/app.js';
import type { Config } from '../../src/config.js';

export { eventually };

type WalletMethods = (typeof walletV1.WalletService)['method'];
export type WalletClient = ServiceClient<WalletMethods>;
export type TestWallet = ServedService<Config, WalletMethods>;

/** `pool` is for assertions and for writes behind the service's back. */
export interface TestEnv extends Pick<TestInfra, 'databaseUrl' | 'pool' | 'query' | 'cleanup'> {
  /** Starts one wallet instance in-process on free ports, with a gRPC client to it. */
  start(env?: Record<string, string>): Promise<TestWallet>;
  /**
   * Publishes an event envelope as the orders service's relay would; returns
   * its id. The same `id` under a new `msgId` is a redelivery JetStream
   * cannot drop (a republish after its duplicate window).
   */
  publish<T extends EventType>(type: T, data: EventData<T>, options?: PublishOptions): Promise<string>;
}

/**
 * A fresh database and NATS namespace for one test file (see
 * @esim/testing), removed by `cleanup`. The test plays the orders service:
 * it publishes order outcomes straight to JetStream.
 */
export async function createTestEnv(): Promise<TestEnv> {
  const infra = await createTestInfra('wallet');
  return {
    databaseUrl: infra.databaseUrl,
    pool: infra.pool,
    start: (env) => infra.serve(walletService, walletV1.WalletService, env),
    query: infra.query,
    publish: async (type, data, options) => (await infra.publish(type, data, options)).id,
    cleanup: infra.cleanup,
  };
}

export const audit = { operator: 'alice', requestId: 'req_test', note: 'ticket 42' };

/** A new partner with `amount` credited by an operator top-up (none when 0). */
export async function fundedPartner(client: WalletClient, amount: number): Promise<string> {
  const partnerId = newId('ptn');
  if (amount > 0) await client.topUp({ partnerId, amount: BigInt(amount), reference: `FUND-${partnerId}`, audit });
  return partnerId;
}
