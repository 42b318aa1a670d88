// Protects #23's "a debit is never left without its order": a wallet paused inside Reserve, after its statements and
// before its COMMIT (here: the COMMIT held on the wire by a proxy in front of Postgres), for longer than the order's
// deadline, never commits the debit. The orders sweeper drops a pending order with no reservation only after that
// deadline, so the debit cannot land after the drop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { startPgProxy, type PgProxy } from '@esim/testing';
import { ledgerViolations } from './support/invariants.js';
import { createTestEnv, fundedPartner, type TestEnv, type WalletClient } from './support/testEnv.js';

let env: TestEnv;
let client: WalletClient;
let proxy: PgProxy;

beforeAll(async () => {
  env = await createTestEnv();
  proxy = await startPgProxy(env.databaseUrl);
  ({ client } = await env.start({ DATABASE_URL: proxy.url }));
});
afterAll(async () => {
  await proxy?.close();
  await env?.cleanup();
});

/** The database's clock now, plus `ms`. */
async function dbNowPlus(ms: number): Promise<Date> {
  const [row] = await env.query<{ at: Date }>(`SELECT clock_timestamp() + make_interval(secs => $1::double precision / 1000) AS at`, [ms]);
  return row!.at;
}

const order = (partnerId: string, amount: number, notAfter: Date) => ({
  orderId: newId('ord'),
  partnerId,
  amount: BigInt(amount),
  description: 'France 5 GB / 30 days',
  notAfter: notAfter.toISOString(),
});

describe('Reserve bounded by the order\'s deadline', () => {
  it('when the COMMIT is held past the deadline, then nothing is debited, ever', async () => {
    const partnerId = await fundedPartner(client, 10_000);
    const request = order(partnerId, 750, await dbNowPlus(1_500));
    proxy.hold(/^\s*COMMIT/i, 4_000);
    const held = proxy.held();
    const answer = client.reserve(request, { deadlineMs: 15_000 }).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    await held;
    const outcome = await answer;
    proxy.release();
    expect(outcome.ok).toBe(false);
    expect((outcome as { error: unknown }).error).toMatchObject({ code: 'UNAVAILABLE' });
    // Long after the held COMMIT went on: no reservation, no debit.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await expect(client.getReservation({ orderId: request.orderId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await client.getWallet({ partnerId })).balance).toBe(10_000n);
    expect(await env.query(`SELECT 1 FROM wallet.ledger_entries WHERE order_id = $1`, [request.orderId])).toHaveLength(0);
    expect(await ledgerViolations(env.pool)).toEqual([]);
  });

  it('when the deadline has passed before the call, then nothing is debited; inside it, the debit is recorded as before', async () => {
    const partnerId = await fundedPartner(client, 10_000);
    const late = order(partnerId, 750, await dbNowPlus(-1_000));
    await expect(client.reserve(late)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(client.getReservation({ orderId: late.orderId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const inTime = order(partnerId, 750, await dbNowPlus(5_000));
    expect(await client.reserve(inTime)).toMatchObject({ replayed: false, balanceAfter: 9_250n });
    expect(await client.getReservation({ orderId: inTime.orderId })).toMatchObject({ state: 'held' });
  });
});
