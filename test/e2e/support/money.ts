import { randomBytes } from 'node:crypto';
import { jetstream, jetstreamManager, AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { admin, api, apiKeyPattern, onboardPartner, platform, until, waitForMail, withKey, type Onboarded } from './client.js';

/** Money-path helpers shared by the order, wallet and saga suites. */

export const db = () => new pg.Pool({ connectionString: platform.databaseUrl, max: 4 });

/** An approved partner with `balance` cents in its wallet (an operator top-up). */
export async function fundedPartner(balance: number, tier?: 'standard' | 'premium' | 'enterprise'): Promise<Onboarded> {
  const partner = await onboardPartner(tier);
  if (balance > 0) {
    const topup = await admin(`/partners/${partner.id}/wallet/topups`, { body: { amount: balance, reference: `WIRE-${randomBytes(4).toString('hex')}` } });
    if (topup.status !== 201) throw new Error(`top-up answered ${topup.status}: ${topup.text}`);
  }
  return partner;
}

/** Further keys of a partner (each e-mailed once, read back as the partner would), to spread load over several rate-limit buckets. */
export async function extraKeys(partner: Onboarded, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const issued = await admin(`/partners/${partner.id}/keys`, { body: {} });
    if (issued.status !== 201) throw new Error(`key issue answered ${issued.status}: ${issued.text}`);
    const mails = await waitForMail(partner.email, 'A new API key was issued', { count: i + 1 });
    const mail = mails.find((m) => m.text.includes(issued.body.prefix as string))!;
    keys.push(apiKeyPattern.exec(mail.text)![1]!);
  }
  return keys;
}

/** An active plan the supplier simulator treats specially: `FAIL-` is rejected for good, `FLAKY-` fails its first two calls. */
export async function planWithSku(sku: string, floorPrice = 500): Promise<string> {
  const created = await admin('/plans', {
    body: {
      name: `Test ${sku}`,
      countries: ['FR'],
      region: null,
      dataMb: 1024,
      validityDays: 7,
      floorPrice,
      retailPrice: floorPrice * 2,
      supplierSku: `${sku}-${randomBytes(3).toString('hex')}`,
      supplierCost: Math.max(1, Math.floor(floorPrice / 2)),
      active: true,
    },
  });
  if (created.status !== 201) throw new Error(`plan create answered ${created.status}: ${created.text}`);
  return created.body.id as string;
}

export function orderBody(planId: string, clientRequestId = `ord-${randomBytes(6).toString('hex')}`) {
  return { clientRequestId, planId, email: 'traveller@example.com', phoneNumber: '+33612345678' };
}

/**
 * Places an order as a careful partner does: retries the same request
 * (same clientRequestId) on 503 and 409 REQUEST_IN_PROGRESS until it gets a
 * final answer or the deadline passes.
 */
export async function placeOrderPatiently(key: string, body: ReturnType<typeof orderBody>, deadlineMs = 60_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const answer = await api('/partner/orders', { body, ...withKey(key) }).catch((error: Error) => ({ status: 0, body: { code: error.message }, headers: {}, text: '' }));
    if (answer.status === 201 || answer.status === 200 || answer.status === 402 || answer.status === 422) return answer;
    if (answer.status === 429) await new Promise((r) => setTimeout(r, 1_000));
    else if (Date.now() > deadline) return answer;
    else await new Promise((r) => setTimeout(r, 200));
  }
}

/** Polls the order until it is provisioned or failed. */
export function finalOrder(key: string, orderId: string, timeoutMs = 60_000) {
  return until(
    async () => {
      const answer = await api(`/partner/orders/${orderId}`, withKey(key));
      return answer.status === 200 && answer.body.status !== 'processing' ? answer.body : undefined;
    },
    `order ${orderId} to settle`,
    timeoutMs,
  );
}

/** The ledger invariants of contract §6, checked in the wallet's own tables. */
export async function ledgerViolations(pool: pg.Pool, partnerId: string): Promise<string[]> {
  const problems: string[] = [];
  const { rows: entries } = await pool.query<{ id: string; type: string; amount: number; balance_after: number; order_id: string | null; reference: string | null }>(
    `SELECT id, type, amount::float8 AS amount, balance_after::float8 AS balance_after, order_id, reference FROM wallet.ledger_entries WHERE partner_id = $1 ORDER BY created_at, id`,
    [partnerId],
  );
  let running = 0;
  for (const entry of entries) {
    running += entry.amount;
    if (entry.balance_after !== running) problems.push(`${entry.id}: balanceAfter ${entry.balance_after} but the sum so far is ${running}`);
    if (entry.balance_after < 0) problems.push(`${entry.id}: negative balance`);
  }
  const { rows: wallets } = await pool.query<{ balance: number }>('SELECT balance::float8 AS balance FROM wallet.wallets WHERE partner_id = $1', [partnerId]);
  if ((wallets[0]?.balance ?? 0) !== running) problems.push(`wallet balance ${wallets[0]?.balance} is not the ledger sum ${running}`);
  const perOrder = new Map<string, { debits: number; refunds: number }>();
  for (const entry of entries) {
    if (!entry.order_id) continue;
    const seen = perOrder.get(entry.order_id) ?? { debits: 0, refunds: 0 };
    if (entry.type === 'order_debit') seen.debits++;
    // A group order's refund of its missing eSIMs (§7) is apart from its one final refund.
    if (entry.type === 'refund' && entry.reference !== 'missing-units') seen.refunds++;
    perOrder.set(entry.order_id, seen);
  }
  for (const [orderId, seen] of perOrder) {
    if (seen.debits > 1) problems.push(`${orderId} debited ${seen.debits} times`);
    if (seen.refunds > 1) problems.push(`${orderId} refunded ${seen.refunds} times`);
  }
  return problems;
}

export interface StreamedPartnerEvent {
  id: string;
  type: string;
  orderId: string | null;
  seq: number;
  /** The event's `data` as the partner's webhook carries it. */
  payload: any;
}

/** Every partner-facing event of one partner in the PARTNER_EVENTS stream, in stream order. */
export async function partnerEventsInStream(partnerId: string): Promise<StreamedPartnerEvent[]> {
  const nc = await connect({ servers: platform.natsUrl.split(',') });
  try {
    const stream = `${platform.namespace.toUpperCase()}_PARTNER_EVENTS`;
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream);
    const consumer = await jsm.consumers.add(stream, { ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All, inactive_threshold: 60_000_000_000 });
    const events: StreamedPartnerEvent[] = [];
    const reader = await jetstream(nc).consumers.get(stream, consumer.name);
    let remaining = info.state.messages;
    while (remaining > 0) {
      const batch = await reader.fetch({ max_messages: Math.min(remaining, 500), expires: 5_000 });
      let got = 0;
      for await (const message of batch) {
        got++;
        const envelope = message.json<{ id: string; data: { partnerId: string; type: string; orderId: string | null; payload: unknown } }>();
        if (envelope.data.partnerId === partnerId) {
          events.push({ id: envelope.id, type: envelope.data.type, orderId: envelope.data.orderId, seq: message.seq, payload: envelope.data.payload });
        }
      }
      if (got === 0) break;
      remaining -= got;
    }
    await jsm.consumers.delete(stream, consumer.name).catch(() => false);
    return events;
  } finally {
    await nc.close();
  }
}
