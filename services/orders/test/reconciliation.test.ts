// Protects the reconciliation (contract §11, #23): a debit held without its order is released, a failed order's held
// debit refunded, a paid order without a debit flagged; each run recorded with its findings, newest first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { createTestEnv, orderRequest, type OrdersClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: OrdersClient;
let plan: { id: string; name: string };

beforeAll(async () => {
  env = await createTestEnv();
  // No daily run of its own during the file; held debits are looked at from any age.
  ({ client } = await env.start({ ORDERS_SWEEP_INTERVAL_MS: '3600000', ORDERS_RECONCILE_INTERVAL_MS: '604800000' }));
  plan = await env.plan('FR');
});
afterAll(() => env?.cleanup());

describe('the reconciliation', () => {
  it('when a debit is held for no order and a paid order has no debit, then the run releases the one, flags the other, and lists both', async () => {
    const partnerId = env.partner(10_000);
    const orphan = newId('ord');
    env.wallet.reservations.set(orphan, { orderId: orphan, partnerId, amount: 700, state: 'held', balanceAfter: 9_300 });
    const paid = await client.createOrder(orderRequest(partnerId, plan.id));
    // The wallet lost the paid order's debit (what the reconciliation exists to notice).
    env.wallet.reservations.delete(paid.order!.id);

    const run = await client.runReconciliation({ trigger: 'operator' }, { deadlineMs: 30_000 });
    expect(run.trigger).toBe('operator');
    const byOrder = new Map(run.findings.map((finding) => [finding.orderId, finding]));
    expect(byOrder.get(orphan)).toMatchObject({ kind: 'held_debit_without_order', partnerId, amount: 700n, action: 'released' });
    expect(env.wallet.refundCalls.filter((call) => call.orderId === orphan)).toHaveLength(1);
    expect(env.wallet.reservations.get(orphan)?.state).toBe('released');
    expect(byOrder.get(paid.order!.id)).toMatchObject({ kind: 'order_paid_without_debit', partnerId, action: 'flagged' });

    // The next run finds the released debit settled: only the flag remains.
    const again = await client.runReconciliation({ trigger: 'operator' }, { deadlineMs: 30_000 });
    expect(again.findings.map((finding) => finding.orderId)).not.toContain(orphan);
    expect(env.wallet.refundCalls.filter((call) => call.orderId === orphan)).toHaveLength(1);

    const { runs } = await client.listReconciliationRuns({ limit: 10 });
    expect(runs.map((listed) => listed.id).slice(0, 2)).toEqual([again.id, run.id]);
    expect(runs[1]!.findings).toHaveLength(run.findings.length);
  });
});
