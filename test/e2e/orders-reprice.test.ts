// Protects §7's "charged the plan's price at order time" across an operator's reprice: an order placed right after the admin PATCH answered pays the new price, not one the orders service cached before the change event reached it.
import { describe, expect, it } from 'vitest';
import { admin, asKey, until } from './support/client.js';
import { fundedPartner, orderBody, planWithSku } from './support/money.js';

describe('ordering right after a reprice', () => {
  it('when an operator PATCHes the price and the partner orders at once, then the order and the debit are the new price, every time', async () => {
    const start = 600;
    const planId = await planWithSku('E2E-REPRICE', start);
    const partner = await fundedPartner(100_000);
    let balance = 100_000;
    const orderAt = async (price: number, retryUnavailable = false) => {
      const body = orderBody(planId);
      // The file before this one may have restarted a service; until the orders service reaches the catalog again, an
      // order answers the retryable 503, and a client sends the same body again (the same clientRequestId: one order).
      const answer = retryUnavailable
        ? await until(async () => {
            const attempt = await asKey(partner.apiKey, '/partner/orders', { body });
            return attempt.status === 503 ? undefined : attempt;
          }, 'the first order past a 503', 30_000, 500)
        : await asKey(partner.apiKey, '/partner/orders', { body });
      expect(answer.status, answer.text).toBe(201);
      balance -= price;
      expect(answer.body).toMatchObject({ planId, price, walletBalance: balance });
    };

    // Cached by orders at the starting price, so each reprice below has a stale entry to beat.
    await orderAt(start, true);
    for (let round = 1; round <= 5; round++) {
      const price = start + round * 37;
      const patched = await admin(`/plans/${planId}`, { method: 'PATCH', body: { floorPrice: price, retailPrice: price * 2 } });
      expect(patched.status, patched.text).toBe(200);
      await orderAt(price);
      // And again: the new price is what stays cached.
      await orderAt(price);
    }
    const wallet = await asKey(partner.apiKey, '/partner/wallet');
    expect(wallet.body.balance).toBe(balance);
    expect((wallet.body.ledger as Array<{ type: string; amount: number }>).filter((entry) => entry.type === 'order_debit').map((entry) => -entry.amount)).toEqual(
      [600, 637, 637, 674, 674, 711, 711, 748, 748, 785, 785].reverse(),
    );
  });
});
