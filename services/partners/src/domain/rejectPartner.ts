import { withTransaction } from '@esim/postgres';
import { listApiKeys } from '../store/keyStore.js';
import { updatePartner } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import type { Actor, Partner } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { requireStatus } from './partnerRules.js';
import { audit, credentialsChanged, requestMail } from './sideEffects.js';

/** pending → rejected, with the reason e-mailed to the applicant; a rejected account cannot log in. */
export function rejectPartner(deps: PartnersDeps, id: string, reason: string, actor: Actor): Promise<Partner> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, id);
    requireStatus(partner, ['pending'], 'reject');
    const rejected = await updatePartner(db, id, { status: 'rejected', rejectionReason: reason });
    // Test keys issued while pending (§14) stop on every gateway replica.
    await credentialsChanged(db, id, (await listApiKeys(db, id)).map((k) => k.prefix));
    await requestMail(db, deps.dataKey, { to: rejected.email, template: 'partner_rejected', values: { name: rejected.name, reason } });
    await audit(db, actor, 'partner.rejected', id, { reason });
    return rejected;
  });
}
