/** After-the-sale helpers (§13): plans of a chosen shape, eSIMs bought and settled, the simulator's control API, and notifications signed as the supplier signs them. */
import { randomBytes } from 'node:crypto';
import { sign } from '@esim/supplier-signature';
import { admin, api, call, platform, until, withKey, type Answer } from './client.js';
import { orderBody } from './money.js';

/** An active plan covering `countries`, `dataMb` big, sold at `floorPrice` cents (standard tier). */
export async function planFor(countries: string[], dataMb: number, floorPrice = 500, validityDays = 30): Promise<string> {
  const sku = `ESIM-${randomBytes(4).toString('hex')}`;
  const created = await admin('/plans', {
    body: {
      name: `${countries.join('+')} ${dataMb} MB ${sku}`,
      countries,
      region: countries.length > 1 ? 'Europe' : null,
      dataMb,
      validityDays,
      floorPrice,
      retailPrice: floorPrice * 2,
      supplierSku: sku,
      supplierCost: Math.max(1, Math.floor(floorPrice / 2)),
      active: true,
    },
  });
  if (created.status !== 201) throw new Error(`plan create answered ${created.status}: ${created.text}`);
  return created.body.id as string;
}

/** Orders `planId` (a top-up when `iccid` is set) and waits until the order is final. */
export async function buy(key: string, planId: string, iccid?: string): Promise<any> {
  const body = { ...orderBody(planId), ...(iccid ? { iccid } : {}) };
  const placed = await api('/partner/orders', { body, ...withKey(key) });
  if (placed.status !== 201) throw new Error(`order answered ${placed.status}: ${placed.text}`);
  return settled(key, placed.body.id as string);
}

/** Polls the order until it is no longer processing. */
export function settled(key: string, orderId: string, timeoutMs = 30_000): Promise<any> {
  return until(
    async () => {
      const answer = await api(`/partner/orders/${orderId}`, withKey(key));
      return answer.status === 200 && answer.body.status !== 'processing' ? answer.body : undefined;
    },
    `order ${orderId} to settle`,
    timeoutMs,
    250,
  );
}

export const esimOf = (key: string, iccid: string) => api(`/partner/esims/${iccid}`, withKey(key));

/** Polls the eSIM view until `ready` holds (notifications apply asynchronously after their 202). */
export function esimWhen(key: string, iccid: string, ready: (esim: any) => boolean, what: string, timeoutMs = 15_000): Promise<any> {
  return until(
    async () => {
      const answer = await esimOf(key, iccid);
      return answer.status === 200 && ready(answer.body) ? answer.body : undefined;
    },
    `eSIM ${iccid}: ${what}`,
    timeoutMs,
    250,
  );
}

/** The simulator's control API: the traveller's side. */
export const simulator = (path: string, body?: unknown): Promise<Answer> =>
  call(platform.supplierSimUrl, `/simulator/esims/${path}`, { method: 'POST', ...(body === undefined ? {} : { body }) });
export const install = (iccid: string) => simulator(`${iccid}/install`);
export const use = (iccid: string, addMb: number) => simulator(`${iccid}/usage`, { addMb });
export const expire = (iccid: string) => simulator(`${iccid}/expire`);
export const simulatorView = (iccid: string) => call(platform.supplierSimUrl, `/simulator/esims/${iccid}`);

export interface NotifyOptions {
  /** Unix seconds of the signature (default now). */
  at?: number;
  secret?: string;
  /** A header of one's own instead of a signature (or none with ''). */
  header?: string;
}

/** Sends a notification to the gateway as the supplier does: the exact bytes signed with the platform copy's secret. */
export function notify(notification: Record<string, unknown>, options: NotifyOptions = {}): Promise<Answer> {
  const body = JSON.stringify(notification);
  const header = options.header ?? sign(options.secret ?? platform.supplierCallbackSecret, body, options.at ?? Math.floor(Date.now() / 1000));
  return call(platform.publicUrl, '/supplier/v1/notifications', {
    method: 'POST',
    rawBody: body,
    headers: { 'content-type': 'application/json', ...(header ? { 'x-supplier-signature': header } : {}) },
  });
}

export const notificationId = () => `ntf_e2e${randomBytes(8).toString('hex')}`;

export function usageNotification(iccid: string, reference: string, dataUsedMb: number, occurredAt = new Date().toISOString()) {
  return { id: notificationId(), type: 'bundle.usage', occurredAt, iccid, reference, dataUsedMb };
}

/** The wallet's ledger entries of one order, by type. */
export async function ledgerOf(key: string, orderId: string): Promise<{ debits: number; refunds: number; refunded: number }> {
  const entries: any[] = [];
  for (let page = 1; ; page++) {
    const answer = await api(`/partner/wallet/ledger?limit=100&page=${page}`, withKey(key));
    entries.push(...answer.body.data);
    if (page >= answer.body.pagination.totalPages) break;
  }
  const mine = entries.filter((entry) => entry.orderId === orderId);
  const refunds = mine.filter((entry) => entry.type === 'refund');
  return { debits: mine.filter((entry) => entry.type === 'order_debit').length, refunds: refunds.length, refunded: refunds.reduce((sum, entry) => sum + entry.amount, 0) };
}
