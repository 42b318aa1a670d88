import type { ServiceHandlers } from '@esim/grpc';
import type { ordersV1 } from '@esim/proto';
import { cancelOrder } from '../domain/cancelOrder.js';
import { createOrder } from '../domain/createOrder.js';
import type { OrdersDeps } from '../domain/deps.js';
import { getOrder } from '../domain/getOrder.js';
import { listOrders } from '../domain/listOrders.js';
import { esimLifecycle } from '../esims/lifecycle.js';
import { listReconciliationRuns, runReconciliation, type ReconciliationOptions, type ReconciliationRun } from '../domain/reconciliation.js';
import { AppError } from '@esim/errors';
import { quoteOrder } from '../domain/quoteOrder.js';
import { esimStatusFilter, notificationTypeFromProto, orderStatusFilter, testEsimActionFromProto } from './enums.js';
import { esimMessage, orderMessage } from './views.js';
import { TestModeGate, type TestModeGateOptions } from './testModeGate.js';
import { livemodeOf } from '@esim/ids';

type OrdersMethods = (typeof ordersV1.OrdersService)['method'];

/** Without configuration (tests): held debits older than an hour, paid orders of the last week. */
const defaultReconciliation: ReconciliationOptions = { heldAfterMs: 3_600_000, paidWithinDays: 7 };

function reconciliationRunMessage(run: ReconciliationRun) {
  return {
    id: run.id,
    trigger: run.trigger,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt.toISOString(),
    findings: run.findings.map((finding) => ({
      kind: finding.kind,
      orderId: finding.orderId ?? '',
      partnerId: finding.partnerId ?? '',
      amount: BigInt(finding.amount ?? 0),
      detail: finding.detail,
      action: finding.action,
    })),
  };
}

/** A test order started with less than this before its deadline could not reach the wallet in time. */
export const testModeMinRemainingMs = 1_000;

/** Without configuration (tests): as the config's defaults. */
const defaultTestModeGate: TestModeGateOptions = { concurrency: 2, queueMax: 200, minRemainingMs: testModeMinRemainingMs };

/**
 * Transport only: each RPC converts its message, calls one use case, converts
 * the answer. A test-mode order is admitted through the test-mode gate first
 * (§14), so a test flood queues here rather than beside live orders.
 */
export function ordersHandlers(
  deps: OrdersDeps,
  reconciliation: ReconciliationOptions = defaultReconciliation,
  testModeGate: TestModeGateOptions = defaultTestModeGate,
): ServiceHandlers<OrdersMethods> {
  const testOrders = new TestModeGate(testModeGate);
  return {
    async runReconciliation(request) {
      const trigger = request.trigger === 'daily' ? 'daily' : 'operator';
      const run = await runReconciliation(deps, trigger, reconciliation);
      if (!run) throw new AppError('UNAVAILABLE', 'A reconciliation is running; retry shortly.');
      return reconciliationRunMessage(run);
    },
    async listReconciliationRuns(request) {
      return { runs: (await listReconciliationRuns(deps.pool, request.limit || 10)).map(reconciliationRunMessage) };
    },
    async createOrder(request, context) {
      const create = () => createOrder(deps, { ...request, catalogVersion: Number(request.catalogVersion) }, context.deadline);
      const { order, walletBalance, replayed } = livemodeOf(request.partnerId) ? await create() : await testOrders.run(create, context.deadline);
      return { order: orderMessage(order), walletBalance: BigInt(walletBalance), replayed };
    },
    async getOrder(request) {
      return orderMessage(await getOrder(deps.pool, request));
    },
    async listOrders(request) {
      const { orders, total } = await listOrders(deps.pool, { ...request, status: orderStatusFilter(request.status) });
      return { orders: orders.map(orderMessage), total };
    },
    async cancelOrder(request, context) {
      const { order, refundedAmount, alreadyCancelled } = await cancelOrder(deps, request, context.deadline);
      return { order: orderMessage(order), refundedAmount: BigInt(refundedAmount), alreadyCancelled };
    },
    async getEsim(request) {
      return esimMessage(await esimLifecycle.getEsim(deps.pool, request));
    },
    async listEsims(request) {
      const { esims, total } = await esimLifecycle.listEsims(deps.pool, { ...request, status: esimStatusFilter(request.status) });
      return { esims: esims.map(esimMessage), total };
    },
    async setEsimSuspended(request) {
      return esimMessage(await esimLifecycle.setSuspended(deps, request));
    },
    async driveTestEsim(request, context) {
      const action = testEsimActionFromProto(request.action, request.addMb);
      return esimMessage(await esimLifecycle.driveTestEsim(deps, { partnerId: request.partnerId, iccid: request.iccid, action }, context.deadline));
    },
    async quoteOrder(request) {
      const quote = await quoteOrder(deps, { ...request, catalogVersion: Number(request.catalogVersion) });
      return {
        ...quote,
        unitPrice: BigInt(quote.unitPrice),
        price: BigInt(quote.price),
        walletBalance: BigInt(quote.walletBalance),
        balanceAfter: BigInt(quote.balanceAfter),
        compatible: quote.compatible ?? undefined,
      };
    },
    async recordSupplierNotification(request) {
      return esimLifecycle.recordSupplierNotification(deps, { ...request, type: notificationTypeFromProto(request.type) });
    },
  };
}
