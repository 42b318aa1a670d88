import type { Queryable } from '@esim/postgres';
import { listVisibleOrders } from '../store/orderStore.js';
import { withGroupEsims } from './groupOrders.js';
import type { VisibleOrder } from './order.js';
import { modeFilter, parsePage, parseStatusFilter } from './requestRules.js';

/**
 * Orders newest first, ties by id (contract §3), so paging is stable; never
 * the internal 'pending' rows. `partnerId` '' lists every partner (operators),
 * of one mode: live unless `livemode` is false (contract §14).
 */
export async function listOrders(
  db: Queryable,
  request: { partnerId: string; status: string | undefined; livemode?: boolean; page?: { page: number; limit: number } },
): Promise<{ orders: VisibleOrder[]; total: number }> {
  const status = parseStatusFilter(request.status);
  const { page, limit } = parsePage(request.page);
  const filter = { ...(request.partnerId !== '' ? { partnerId: request.partnerId } : {}), ...(status ? { status } : {}), livemode: modeFilter(request) };
  const { orders, total } = await listVisibleOrders(db, filter, { limit, offset: (page - 1) * limit });
  return { orders: await withGroupEsims(db, orders as VisibleOrder[]), total };
}
