import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import { publishEvent, type Namespace, type NatsConnection } from '@esim/events';
import { auditContextOf } from '../../auth/adminAuth.js';
import type { OrdersClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { problems } from '../../http/schemas.js';

const tags = ['Reconciliation'];

/** How long an operator's run may take: it waits for one under way (the orders service bounds that at 60 s) and then runs. */
const runDeadlineMs = 120_000;

const finding = component(
  z.object({
    kind: z
      .enum(['held_debit_without_order', 'failed_order_not_refunded', 'held_debit_not_settled', 'order_paid_without_debit', 'balance_not_ledger_sum'])
      .describe('What did not match'),
    orderId: z.string().nullable(),
    partnerId: z.string().nullable(),
    amount: z.number().int().nullable().describe('The money concerned, in minor units (for a balance: balance − ledger sum)'),
    detail: z.string(),
    action: z.enum(['released', 'refunded', 'flagged']).describe('What was done: released or refunded by the run itself, or flagged for an operator'),
  }),
  'ReconciliationFinding',
  'admin',
);

const run = component(
  z.object({
    id: z.string(),
    trigger: z.enum(['operator', 'daily']),
    startedAt: z.string(),
    finishedAt: z.string(),
    mismatches: z.number().int().describe('How many findings'),
    findings: z.array(finding),
  }),
  'ReconciliationRun',
  'admin',
);

const runList = component(z.object({ data: z.array(run).describe('The latest runs, newest first (at most 10)') }), 'ReconciliationRuns', 'admin');

type RunMessage = Awaited<ReturnType<OrdersClient['runReconciliation']>>;

function runView(message: RunMessage) {
  return {
    id: message.id,
    trigger: message.trigger === 'daily' ? ('daily' as const) : ('operator' as const),
    startedAt: message.startedAt,
    finishedAt: message.finishedAt,
    mismatches: message.findings.length,
    findings: message.findings.map((f) => ({
      kind: f.kind as z.infer<typeof finding>['kind'],
      orderId: f.orderId || null,
      partnerId: f.partnerId || null,
      amount: f.kind === 'balance_not_ledger_sum' || f.orderId ? Number(f.amount) : null,
      detail: f.detail,
      action: f.action as z.infer<typeof finding>['action'],
    })),
  };
}

/**
 * The reconciliation (contract §11): the wallet's ledger against the orders,
 * daily by itself and on demand here; every mismatch with what was done.
 */
export function adminReconciliationRoutes(app: FastifyInstance, deps: { orders: OrdersClient; nc: NatsConnection; ns: Namespace }): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/reconciliation/run',
    {
      schema: {
        tags,
        summary: 'Run the reconciliation now',
        description:
          'Compares the wallet’s ledger with the orders now (one run at a time: waits for one under way) and answers the run: each mismatch with what was done (a held debit without an order released, a failed order’s debit refunded, the rest flagged). Also runs daily by itself.',
        response: { 200: run, ...problems(401, 503) },
      },
    },
    async (request) => {
      const view = runView(await deps.orders.runReconciliation({ trigger: 'operator' }, { deadlineMs: runDeadlineMs }));
      // The run moves money (releases, refunds): audited with the operator (§10). Published after the run, as the dead-letter
      // redrive is (the gateway has no outbox); a failed publish answers 503 and a retry runs (finding nothing new) and records it.
      const counts = Object.fromEntries(['released', 'refunded', 'flagged'].map((action) => [action, view.findings.filter((f) => f.action === action).length]));
      await publishEvent(deps.nc, deps.ns, 'audit.recorded', {
        action: 'reconciliation.run',
        target: view.id,
        ...auditContextOf(request),
        details: { mismatches: view.mismatches, ...counts },
        occurredAt: new Date().toISOString(),
      }).catch((error: unknown) => {
        throw new AppError('UNAVAILABLE', 'The run finished but its audit entry could not be recorded; retry.', { cause: error });
      });
      return view;
    },
  );

  typed.get(
    '/reconciliation',
    {
      schema: {
        tags,
        summary: 'The latest reconciliation runs and their mismatches',
        description: 'Newest first, at most 10: the daily runs and the operators’. An empty list before the first run.',
        response: { 200: runList, ...problems(401, 503) },
      },
    },
    async () => ({ data: (await deps.orders.listReconciliationRuns({ limit: 10 })).runs.map(runView) }),
  );
}
