import { AppError } from '@esim/errors';
import type { Pool } from '@esim/postgres';
import { deliveryStatuses, isOneOf } from '@esim/vocabulary';
import { listDeliveries as listFromStore } from '../store/deliveryStore.js';
import type { Delivery } from './delivery.js';

export interface DeliveryQuery {
  /** An account id (`ptn_X` live, `ptn_X_test` test). Empty: every account's of the mode `livemode` names (operators). */
  partnerId: string;
  /** Only without partnerId; undefined: live only (§14: test activity only when asked for). */
  livemode?: boolean | undefined;
  /** Empty: every endpoint. */
  endpointId?: string;
  /** Empty: every status. */
  status: string;
  page: number;
  limit: number;
}

/**
 * The delivery log an operator or a partner reads: newest first, filtered,
 * paged. One account's deliveries are of its mode alone; the log of every
 * partner is one mode's, live unless test is asked for.
 */
export function listDeliveries(pool: Pool, query: DeliveryQuery): Promise<{ deliveries: Delivery[]; total: number }> {
  if (query.status && !isOneOf(deliveryStatuses, query.status)) {
    throw new AppError('VALIDATION_ERROR', `Unknown delivery status ${query.status}.`, {
      errors: [{ path: 'status', message: `must be one of ${deliveryStatuses.join(', ')}` }],
    });
  }
  const limit = Math.min(Math.max(query.limit || 20, 1), 100);
  const page = Math.max(query.page || 1, 1);
  return listFromStore(pool, {
    partnerId: query.partnerId || undefined,
    livemode: query.partnerId ? undefined : (query.livemode ?? true),
    endpointId: query.endpointId || undefined,
    status: query.status ? (query.status as Delivery['status']) : undefined,
    limit,
    offset: (page - 1) * limit,
  });
}
