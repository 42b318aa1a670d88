import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import { accountIdOf, partnerIdOf } from '@esim/ids';
import type { WalletClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { problems } from '../../http/schemas.js';
import { ledgerEntryView, toLedgerEntryView } from '../../views/wallet.js';
import { accountOf, type Door, type PartnerDoors } from '../partnerDoors.js';

/** Contract §14: one credit moves 1 – 100 000 000 minor units, as an operator top-up (§6). */
const maxAmount = 100_000_000;

const testCreditRequest = component(
  z.strictObject({
    amount: z.number().int('must be a whole number of minor units').min(1, 'must be at least 1').max(maxAmount, `must be at most ${maxAmount}`),
  }),
  'TestWalletCreditRequest',
  'public',
);

/**
 * The account a test credit lands on. The API-key door: the key's own
 * account, refused for a live key (TEST_MODE_ONLY), so live money never
 * appears without an operator. The portal twin (the portal's "credit test
 * wallet" button): always the signed-in partner's test account, whatever
 * mode the portal shows, since there is nothing else it could mean.
 */
function testAccountOf(door: Door, account: { partnerId: string; livemode: boolean }): string {
  if (door.portal) return accountIdOf(partnerIdOf(account.partnerId), false);
  if (account.livemode) throw new AppError('TEST_MODE_ONLY', 'Test wallet credits need a test key (sk_test_…); a live wallet is credited by an operator.');
  return account.partnerId;
}

/** POST /partner/test/wallet/credit (test key, wallet:read) and its portal twin POST /partner/me/test/wallet/credit (§14). */
export function testWalletCreditRoute(app: FastifyInstance, { wallet, doors }: { wallet: WalletClient; doors: PartnerDoors }): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const door of doors.both('wallet:read')) {
    typed.post(
      `${door.prefix}/test/wallet/credit`,
      {
        schema: {
          tags: [door.portal ? 'Portal' : 'Test mode'],
          summary: door.portal ? 'Credit your test wallet (portal)' : 'Credit your test wallet',
          description:
            'Test mode only (§14): adds `amount` minor units to the test wallet as a `topup` ledger entry and sends the `wallet.credited` test event. ' +
            (door.portal
              ? 'The portal twin always credits the partner’s test wallet.'
              : 'A live key answers 403 TEST_MODE_ONLY. Each call credits again (no idempotency key).'),
          security: door.security,
          body: testCreditRequest,
          response: { 201: ledgerEntryView.describe('The new topup entry of the test ledger'), ...problems(400, 413, 415), ...door.problems },
        },
        onRequest: door.onRequest,
      },
      async (request, reply) => {
        const partnerId = testAccountOf(door, accountOf(request));
        const result = await wallet.creditTestWallet({ partnerId, amount: BigInt(request.body.amount) });
        return reply.code(201).send(toLedgerEntryView(result.entry!, false));
      },
    );
  }
}
