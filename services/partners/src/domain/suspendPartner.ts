import { withTransaction } from '@esim/postgres';
import { listApiKeys } from '../store/keyStore.js';
import { updatePartner } from '../store/partnerStore.js';
import type { PartnersDeps } from './deps.js';
import type { Actor, Partner } from './partner.js';
import { lockPartner } from './partnerLock.js';
import { requireStatus } from './partnerRules.js';
import { audit, credentialsChanged } from './sideEffects.js';

/** approved → suspended. The gateway's cached credentials are dropped, so the keys answer 403 at once. */
export function suspendPartner(deps: PartnersDeps, id: string, actor: Actor): Promise<Partner> {
  return setSuspended(deps, id, true, actor);
}

/** suspended → approved, the mirror image: the keys work again as soon as the caches are dropped. */
export function reinstatePartner(deps: PartnersDeps, id: string, actor: Actor): Promise<Partner> {
  return setSuspended(deps, id, false, actor);
}

function setSuspended(deps: PartnersDeps, id: string, suspended: boolean, actor: Actor): Promise<Partner> {
  return withTransaction(deps.pool, async (db) => {
    const partner = await lockPartner(db, id);
    requireStatus(partner, suspended ? ['approved'] : ['suspended'], suspended ? 'suspend' : 'reinstate');
    const updated = await updatePartner(db, id, { status: suspended ? 'suspended' : 'approved' });
    await credentialsChanged(db, id, (await listApiKeys(db, id)).map((k) => k.prefix));
    await audit(db, actor, suspended ? 'partner.suspended' : 'partner.reinstated', id);
    return updated;
  });
}
