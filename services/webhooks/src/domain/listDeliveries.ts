import { AppError } from '@esim/errors';
import type { Pool } from '@esim/postgres';
import { deliveryStatuses, isOneOf } from '@esim/vocabulary';
import { listDeliveries as listFromStore } from '../store/deliveryStore.js';
import type { Delivery } from './delivery.js';

export interface DeliveryQuery {
  /** Empty: every partner's (operators). */
  partnerId: string;
  /** Empty: every endpoint. */
  endpointId?: string;
  /** Empty: every status. */
  status: string;
  page: number;
  limit: number;
}

/** The delivery log an operator or a partner reads: newest first, filtered, paged. */
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
    endpointId: query.endpointId || undefined,
    status: query.status ? (query.status as Delivery['status']) : undefined,
    limit,
    offset: (page - 1) * limit,
  });
}
