import { randomBytes } from 'node:crypto';
import { ordersV1 } from '@esim/proto';
import { esimFor, eventually, orderRequest, type OrdersClient, type TestEnv } from './testEnv.js';

const S = ordersV1.OrderStatus;
export const T = ordersV1.SupplierNotificationType;
export const B = ordersV1.BundleStatus;
export const E = ordersV1.EsimStatus;

/**
 * A provisioned order, as the saga would leave it: created through the RPC,
 * then provisioning.succeeded published (for a top-up, naming its eSIM).
 */
export async function provisionedOrder(
  env: TestEnv,
  client: OrdersClient,
  options: { partnerId: string; planId: string; iccid?: string },
): Promise<ordersV1.Order> {
  const request = orderRequest(options.partnerId, options.planId, options.iccid === undefined ? {} : { iccid: options.iccid });
  const { order } = await client.createOrder(request);
  await env.publish('provisioning.succeeded', esimFor(order!.id, options.iccid));
  const done = await eventually(async () => (await client.getOrder({ id: order!.id, partnerId: options.partnerId })).status === S.PROVISIONED, 10_000);
  if (!done) throw new Error(`order ${order!.id} was not provisioned`);
  return client.getOrder({ id: order!.id, partnerId: options.partnerId });
}

/** A supplier notification as the gateway passes it on, with a fresh id unless given. */
export function notification(
  type: ordersV1.SupplierNotificationType,
  iccid: string,
  extra: { reference?: string; dataUsedMb?: number; occurredAt?: string; id?: string } = {},
) {
  return {
    id: extra.id ?? `ntf_${randomBytes(8).toString('hex')}`,
    type,
    occurredAt: extra.occurredAt ?? new Date().toISOString(),
    iccid,
    ...(extra.reference === undefined ? {} : { reference: extra.reference }),
    ...(extra.dataUsedMb === undefined ? {} : { dataUsedMb: extra.dataUsedMb }),
  };
}

/** The partner events about one eSIM in the outbox (keyed by its first order id), in the order written. */
export async function esimEvents(env: TestEnv, firstOrderId: string): Promise<{ type: string; payload: Record<string, unknown> }[]> {
  const rows = await env.query<{ payload: { data: { type: string; payload: Record<string, unknown> } } }>(
    `SELECT payload FROM orders.outbox WHERE subject LIKE '%partner.notification' AND payload->'data'->>'orderId' = $1
       AND payload->'data'->>'type' LIKE 'esim.%' ORDER BY seq`,
    [firstOrderId],
  );
  return rows.map((row) => row.payload.data);
}
