import { AppError } from '@esim/errors';
import { newId } from '@esim/ids';
import { withTransaction } from '@esim/postgres';
import type { PlanPrice } from '../clients/catalog.js';
import { lockEsimKey } from '../store/esimStore.js';
import { reserveNotAfter } from './settlePendingOrders.js';
import { deletePendingOrder, findOrder, findOrderByRequest, insertPendingOrder, type NewOrder } from '../store/orderStore.js';
import { confirmPayment } from './confirmPayment.js';
import { orderLogFields } from './customerLog.js';
import type { OrdersDeps } from './deps.js';
import { fingerprintOf } from './fingerprint.js';
import { modeOf, ordersCreated, ordersReplayed } from './metrics.js';
import { isVisible, type Order, type OrderRequest, type VisibleOrder } from './order.js';
import { withGroupEsims } from './groupOrders.js';
import { checkQuantity } from './quantity.js';
import { checkOrderRequest } from './requestRules.js';
import { checkCompatible, toppableEsim } from './topUpRules.js';

export interface CreatedOrder {
  order: VisibleOrder;
  /** The balance right after the debit; for a replay, the balance now. */
  walletBalance: number;
  replayed: boolean;
}

/** A lost insert race sends us back to the lookup; the row we lost to cannot vanish more than once or twice. */
const maxAttempts = 3;

/**
 * A partner orders a plan for a customer (contract §7). The guarantees:
 * - one clientRequestId per partner is one order and at most one debit,
 *   however many times and however concurrently it is sent;
 * - the order row is committed 'pending' before the wallet is asked, so a
 *   crash or an outage after the debit leaves a row the sweeper settles
 *   (settlePendingOrders) rather than money held for no order;
 * - 'processing' and its two events commit together, after the debit.
 */
export async function createOrder(deps: OrdersDeps, input: OrderRequest, deadline?: number): Promise<CreatedOrder> {
  const request = checkOrderRequest(input);
  const quantity = checkQuantity(input.quantity, request.iccid);
  const fingerprint = fingerprintOf({ ...request, quantity });
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const existing = await findOrderByRequest(deps.pool, request.partnerId, request.clientRequestId);
    if (existing) return replay(deps, existing, fingerprint);
    // A top-up's eSIM is checked before the plan: a wrong ICCID is the caller's first mistake to hear of.
    if (request.iccid !== undefined) await toppableEsim(deps.pool, request.partnerId, request.iccid);

    const price = await deps.catalog.getPlanPrice({ planId: request.planId, tier: request.tier, catalogVersion: request.catalogVersion, deadline });
    if (price.currency !== deps.currency) throw new AppError('INTERNAL', `catalog prices in ${price.currency}, orders are in ${deps.currency}`);

    const order = await insertOrder(deps, newOrderOf(request, fingerprint, price, quantity));
    // A concurrent duplicate inserted first: answer as its duplicate.
    if (!order) continue;
    return { ...(await pay(deps, order, deadline)), replayed: false };
  }
  throw inProgress();
}

function newOrderOf(request: OrderRequest, fingerprint: string, price: PlanPrice, quantity: number): NewOrder {
  return {
    id: newId('ord'),
    partnerId: request.partnerId,
    clientRequestId: request.clientRequestId,
    fingerprint,
    kind: request.iccid === undefined ? 'esim' : 'topup',
    iccid: request.iccid ?? null,
    planId: request.planId,
    planName: price.planName,
    supplierSku: price.supplierSku,
    profileType: price.profileType,
    countries: price.countries,
    region: price.region,
    dataMb: price.dataMb,
    validityDays: price.validityDays,
    // One debit for the group (§7): quantity × the unit price the catalog shows this partner.
    price: price.price * quantity,
    unitPrice: price.price,
    quantity,
    currency: price.currency,
    email: request.email,
    phoneNumber: request.phoneNumber,
  };
}

/**
 * Inserts the order 'pending'. A top-up is inserted under its eSIM's lock,
 * with the eSIM checked again there: a cancellation of the eSIM's first
 * order (same lock) either sees this top-up or is seen by it.
 */
async function insertOrder(deps: OrdersDeps, order: NewOrder): Promise<Order | undefined> {
  const iccid = order.iccid;
  if (order.kind !== 'topup' || iccid === null) return insertPendingOrder(deps.pool, order);
  return withTransaction(deps.pool, async (db) => {
    await lockEsimKey(db, iccid);
    checkCompatible(await toppableEsim(db, order.partnerId, iccid), order);
    return insertPendingOrder(db, order);
  });
}

/** The same clientRequestId again: the earlier order if the body matches and it is paid. */
async function replay(deps: OrdersDeps, existing: Order, fingerprint: string): Promise<CreatedOrder> {
  if (existing.fingerprint !== fingerprint) {
    throw new AppError('IDEMPOTENCY_CONFLICT', `clientRequestId ${existing.clientRequestId} was already used with a different body.`);
  }
  if (!isVisible(existing)) throw inProgress();
  const walletBalance = await deps.wallet.balance(existing.partnerId);
  ordersReplayed.add(1, modeOf(existing.partnerId));
  const [order] = await withGroupEsims(deps.pool, [existing]);
  return { order: order ?? existing, walletBalance, replayed: true };
}

/**
 * Reserves the price, then confirms the order in a short transaction of its
 * own: no transaction (nor row lock, nor pooled connection) is held while the
 * wallet answers. What keeps the sweeper off a request still paying is age:
 * it only settles rows older than the Reserve deadline plus a margin
 * (`minimumPendingAgeMs`), and both sides write with guarded updates, so
 * whichever confirms second finds the row no longer pending.
 * - Refused for balance: the row is deleted, so nothing is listed and the
 *   clientRequestId is free again.
 * - Any other failure (wallet down, timeout, a crash, the confirmation's
 *   commit failing): the row stays 'pending'; a retry hears
 *   REQUEST_IN_PROGRESS until the sweeper settles it, then the replay.
 * - Reserved, but the row is no longer pending: see `settledMeanwhile`.
 */
async function pay(deps: OrdersDeps, order: Order, deadline?: number): Promise<{ order: VisibleOrder; walletBalance: number }> {
  const log = orderLogFields(order);
  let walletBalance: number;
  try {
    ({ balanceAfter: walletBalance } = await deps.wallet.reserve({
      orderId: order.id,
      partnerId: order.partnerId,
      amount: order.price,
      description: order.planName,
      // The row's own creation (the database's clock) plus the Reserve deadline: the wallet commits before it or
      // never, and the sweeper drops a row only well after it, so its "no reservation" is final.
      notAfter: reserveNotAfter(order),
      // The request's own deadline (the gateway's): the call ends before the partner stops waiting.
      deadline,
    }));
  } catch (error) {
    if (error instanceof AppError && error.code === 'INSUFFICIENT_BALANCE') {
      await deletePendingOrder(deps.pool, order.id);
      deps.logger.info(log, 'order refused: insufficient balance');
    } else {
      deps.logger.warn({ ...log, err: error }, 'payment not confirmed; the order stays pending for the sweeper');
    }
    throw error;
  }
  let paid: VisibleOrder | undefined;
  try {
    paid = await withTransaction(deps.pool, (db) => confirmPayment(db, order, walletBalance));
  } catch (error) {
    deps.logger.warn({ ...log, err: error }, 'reserved but not confirmed; the order stays pending for the sweeper');
    throw error;
  }
  if (!paid) return settledMeanwhile(deps, order, walletBalance);
  ordersCreated.add(1, { via: 'request', ...modeOf(order.partnerId) });
  deps.logger.info({ ...log, walletBalance }, 'order paid; provisioning queued');
  return { order: paid, walletBalance };
}

/**
 * The sweeper reached the order while its Reserve was under way (the request
 * outlived `minimumPendingAgeMs`). Found held, the sweeper confirmed it: the
 * order is answered as it stands. Found nothing, the sweeper deleted the row,
 * and the debit that landed after is money held for no order: it is released
 * here (RefundOrder, idempotent per order) and the partner hears 503, safe to
 * retry with the same clientRequestId (a new order).
 */
async function settledMeanwhile(deps: OrdersDeps, order: Order, walletBalance: number): Promise<{ order: VisibleOrder; walletBalance: number }> {
  const log = orderLogFields(order);
  const now = await findOrder(deps.pool, order.id);
  if (now && isVisible(now)) {
    deps.logger.info({ ...log, walletBalance }, 'order paid; the sweeper had confirmed it first');
    return { order: now, walletBalance };
  }
  try {
    await deps.wallet.refund({ orderId: order.id, partnerId: order.partnerId, reason: 'order dropped before its payment was confirmed' });
    deps.logger.warn(log, 'reserved after the sweeper dropped the order; the debit was released');
  } catch (error) {
    deps.logger.error({ ...log, err: error }, 'reserved after the sweeper dropped the order, and the release failed: money held for no order');
  }
  throw new AppError('UNAVAILABLE', 'The payment could not be confirmed in time and was released; retry with the same clientRequestId.');
}

function inProgress(): AppError {
  return new AppError('REQUEST_IN_PROGRESS', 'An order with this clientRequestId is being processed; retry shortly.');
}
