import type { FastifyInstance } from 'fastify';
import { livemodeOf } from '@esim/ids';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WalletClient } from '../../backends.js';
import { component } from '../../http/components.js';
import { pageOf, pageQuery, pagination, problems } from '../../http/schemas.js';
import { ledgerEntryView, toLedgerEntryView, toWalletView, walletLedgerLimit, walletView } from '../../views/wallet.js';
import { accountOf, type PartnerDoors } from '../partnerDoors.js';

const ledgerPage = component(pageOf(ledgerEntryView), 'LedgerPage', 'both');

export interface WalletRouteDeps {
  wallet: WalletClient;
  doors: PartnerDoors;
}

/** GET /partner/wallet and /partner/wallet/ledger (wallet:read), and their portal twins under /partner/me (§6). */
export function walletRoutes(app: FastifyInstance, { wallet, doors }: WalletRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const door of doors.both('wallet:read')) {
    const tags = [door.portal ? 'Portal' : 'Wallet'];
    const portal = door.portal ? ' (portal)' : '';

    typed.get(
      `${door.prefix}/wallet`,
      {
        schema: {
          tags,
          summary: `Your balance and latest ledger entries${portal}`,
          description: `The balance and the ${walletLedgerLimit} most recent ledger entries, newest first. The balance is always the sum of the ledger.`,
          security: door.security,
          response: { 200: walletView, ...door.problems },
        },
        onRequest: door.onRequest,
      },
      async (request) => toWalletView(await wallet.getWallet({ partnerId: accountOf(request).partnerId, ledgerLimit: walletLedgerLimit })),
    );

    typed.get(
      `${door.prefix}/wallet/ledger`,
      {
        schema: {
          tags,
          summary: `Page through the whole ledger, newest first${portal}`,
          security: door.security,
          querystring: z.strictObject(pageQuery()),
          response: { 200: ledgerPage, ...problems(400), ...door.problems },
        },
        onRequest: door.onRequest,
      },
      async (request) => {
        const { page, limit } = request.query;
        const result = await wallet.listLedger({ partnerId: accountOf(request).partnerId, page: { page, limit } });
        const livemode = livemodeOf(accountOf(request).partnerId);
        return { data: result.entries.map((entry) => toLedgerEntryView(entry, livemode)), pagination: pagination(page, limit, result.total) };
      },
    );
  }
}
