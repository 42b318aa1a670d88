import { fileURLToPath } from 'node:url';
import { walletV1 } from '@esim/proto';
import { defineService, grpcBinding } from '@esim/service';
import { readConfig } from './config.js';
import { consumeOrderOutcomes } from './events/orderOutcomes.js';
import { consumeTestDataDeletions } from './events/testDataDeletion.js';
import { walletHandlers } from './grpc/handlers.js';
import { walletSchema } from './store/schema.js';

/** Prepaid wallets: balances, the immutable ledger, and the price held for each order until it is provisioned or refunded. */
export const walletService = defineService({
  name: 'wallet',
  config: readConfig,
  postgres: { schema: walletSchema, migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)) },
  publishes: ['WALLET', 'PARTNER_EVENTS', 'AUDIT'],
  async start(context) {
    await consumeOrderOutcomes(context);
    await consumeTestDataDeletions(context);
    const { pool, config } = context;
    return { grpc: [grpcBinding(walletV1.WalletService, walletHandlers({ pool, currency: config.CURRENCY, logger: context.logger }))] };
  },
});
