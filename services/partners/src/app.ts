import { fileURLToPath } from 'node:url';
import { parseDataKey } from '@esim/crypto';
import { partnersV1 } from '@esim/proto';
import { defineService, grpcBinding, startRetention } from '@esim/service';
import { readConfig } from './config.js';
import { schema, type PartnersDeps } from './domain/deps.js';
import { HashingPool } from './domain/hashingPool.js';
import { recordAuditEvent } from './domain/recordAuditEvent.js';
import { resealWebhookSecrets } from './domain/resealSecrets.js';
import { partnersHandlers } from './grpc/handlers.js';
import { partnersRetention } from './store/retentionStore.js';

/** Partner accounts, API keys, webhook secrets and the operator audit log. */
export const partnersService = defineService({
  name: 'partners',
  config: readConfig,
  postgres: { schema, migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)) },
  publishes: ['MAIL', 'AUDIT', 'PARTNERS'],
  async start({ config, logger, pool, consume, own }) {
    const deps: PartnersDeps = {
      pool,
      dataKey: parseDataKey(config.DATA_ENCRYPTION_KEY),
      passwordCost: config.PASSWORD_HASH_COST,
      hashing: new HashingPool(config.PASSWORD_HASH_CONCURRENCY, config.PASSWORD_HASH_QUEUE),
    };
    // Other services' operator actions (plan edits, top-ups) arrive as events; the log lives here.
    await consume(
      { durable: 'partners_audit', type: 'audit.recorded', ackWaitMs: 30_000, maxDeliver: 20, retry: { firstMs: 2_000, maxMs: 60_000 } },
      (event, db) => recordAuditEvent(db, event),
    );
    // Secrets sealed before #24 are bound to their partner now (AES-GCM associated data).
    await resealWebhookSecrets(deps);
    // Contract §11: the tables that grow with traffic are pruned on their retention (docs/retention.md), hourly.
    own('retention', startRetention({ pool, logger, rules: partnersRetention, everyMs: 3_600_000 }));
    return { grpc: [grpcBinding(partnersV1.PartnersService, partnersHandlers(deps))] };
  },
});
