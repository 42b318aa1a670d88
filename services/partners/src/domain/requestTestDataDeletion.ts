import { enqueueEvent } from '@esim/events';
import { accountIdOf } from '@esim/ids';
import { withTransaction } from '@esim/postgres';
import { schema, type PartnersDeps } from './deps.js';
import { partnerActor } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { requireTestModeHolder } from './partnerRules.js';
import { audit } from './sideEffects.js';

/**
 * A partner asks to wipe its test data (§14). This service only announces
 * it: `partners.test_data.delete_requested` naming the test account goes
 * through the outbox in the same transaction as the audit entry, so the
 * request is either recorded and published or neither; wallet, orders,
 * provisioning and webhooks each delete that account's rows on receipt
 * (idempotently, so asking twice is harmless). Test keys and the test
 * webhook settings are kept: they are credentials and configuration, not data.
 */
export function requestTestDataDeletion(deps: PartnersDeps, partnerId: string, requestId: string): Promise<{ accountId: string; requestedAt: Date }> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, partnerId);
    requireTestModeHolder(partner);
    const accountId = accountIdOf(partnerId, false);
    const requestedAt = new Date();
    await enqueueEvent(db, schema, 'partners.test_data.delete_requested', { accountId, requestedAt: requestedAt.toISOString() });
    await audit(db, partnerActor(partnerId, requestId), 'test_data.delete_requested', partnerId, { accountId });
    return { accountId, requestedAt };
  });
}
