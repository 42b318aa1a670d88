import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accountIdOf, livemodeOf } from '@esim/ids';
import { auditContextOf } from '../../auth/adminAuth.js';
import type { PartnersClient, WalletClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { problems } from '../../http/schemas.js';
import { idOrNotFound } from '../ids.js';
import { livemodeQuery } from './livemodeQuery.js';
import { ledgerEntryView, toLedgerEntryView, toWalletView, walletLedgerLimit, walletView } from '../../views/wallet.js';

const maxAmount = 100_000_000;
const params = z.object({ id: z.string() });
const tags = ['Wallets'];

export const walletCredit = component(
  z.object({ entry: ledgerEntryView, balance: z.number().int().describe('The wallet balance after this entry (now, for a repeated reference)') }),
  'WalletCredit',
  'admin',
);

export interface AdminWalletRouteDeps {
  partners: PartnersClient;
  wallet: WalletClient;
}

/** Operator credit and corrections of a partner's prepaid wallet (§6, §10); both are audited. */
export function adminWalletRoutes(app: FastifyInstance, { partners, wallet }: AdminWalletRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  // The wallet service keeps balances by id and would open one for any id: ask partners first, so a typo is 404, not a new wallet.
  const existingPartner = async (id: string) => (await partners.getPartner({ id: idOrNotFound('ptn', 'PARTNER_NOT_FOUND', id) })).partner!.id;

  typed.get(
    '/partners/:id/wallet',
    {
      schema: {
        tags,
        summary: 'A partner’s wallet',
        description: `The balance and the ${walletLedgerLimit} most recent ledger entries, newest first, as the partner sees them. The live wallet unless \`livemode=false\` asks for the partner's test wallet (§14).`,
        params,
        querystring: z.strictObject(livemodeQuery),
        response: { 200: walletView, ...problems(400, 401, 404, 503) },
      },
    },
    async (request) => {
      const partnerId = await existingPartner(request.params.id);
      return toWalletView(await wallet.getWallet({ partnerId: accountIdOf(partnerId, request.query.livemode), ledgerLimit: walletLedgerLimit }));
    },
  );

  typed.post(
    '/partners/:id/wallet/topups',
    {
      schema: {
        tags,
        summary: 'Credit a partner’s wallet (bank transfer received)',
        description:
          '201 with the `topup` ledger entry and the new balance. `reference` is unique per partner: sending it again answers 200 with the original entry and credits nothing.',
        params,
        body: z.strictObject({
          amount: z.number().int('must be a whole number of minor units').min(1, 'must be at least 1').max(maxAmount, `must be at most ${maxAmount}`),
          reference: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').describe('The bank transfer reference'),
          note: z.string().max(500, 'must be at most 500 characters').optional(),
        }),
        response: { 201: walletCredit, 200: walletCredit.describe('The reference was credited before: the original entry'), ...problems(400, 401, 404, 413, 415, 503) },
      },
    },
    async (request, reply) => {
      const { amount, reference, note } = request.body;
      const partnerId = await existingPartner(request.params.id);
      const result = await wallet.topUp({ partnerId, amount: BigInt(amount), reference, note, audit: auditContextOf(request) });
      return reply.code(result.created ? 201 : 200).send({ entry: toLedgerEntryView(result.entry!, livemodeOf(partnerId)), balance: Number(result.balance) });
    },
  );

  typed.post(
    '/partners/:id/wallet/adjustments',
    {
      schema: {
        tags,
        summary: 'Correct a partner’s balance',
        description: 'A signed `adjustment` ledger entry. The balance never goes below 0: a debit larger than the balance answers 402 INSUFFICIENT_BALANCE and writes nothing. Each call is a new correction (no idempotency key).',
        params,
        body: z.strictObject({
          amount: z
            .number()
            .int('must be a whole number of minor units')
            .min(-maxAmount, `must be at least -${maxAmount}`)
            .max(maxAmount, `must be at most ${maxAmount}`)
            .refine((n) => n !== 0, 'must not be 0'),
          reason: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
        }),
        response: { 201: walletCredit, ...problems(400, 401, 402, 404, 413, 415, 503) },
      },
    },
    async (request, reply) => {
      const { amount, reason } = request.body;
      const partnerId = await existingPartner(request.params.id);
      const result = await wallet.adjust({ partnerId, amount: BigInt(amount), reason, audit: auditContextOf(request) });
      return reply.code(201).send({ entry: toLedgerEntryView(result.entry!, livemodeOf(partnerId)), balance: Number(result.balance) });
    },
  );
}
