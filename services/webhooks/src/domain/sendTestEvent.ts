import { AppError } from '@esim/errors';
import { enqueueEvent } from '@esim/events';
import { isAccountId } from '@esim/ids';
import type { Pool } from '@esim/postgres';
import { getEndpoint, type EndpointDeps } from './endpoints.js';

/**
 * A partner asks for a test webhook. The event goes through this service's
 * outbox and JetStream like every other partner event, so the test proves
 * the whole path (consumer, signing, the partner's receiver), not a shortcut.
 */
export function sendTestEvent(pool: Pool, partnerId: string, platformName: string): Promise<string> {
  // An account id: the test account's webhook.test goes to its test endpoints only (§14).
  if (!isAccountId(partnerId)) throw new AppError('PARTNER_NOT_FOUND', `No partner ${partnerId}.`);
  return enqueueEvent(pool, 'webhooks', 'partner.notification', {
    partnerId,
    type: 'webhook.test',
    orderId: null,
    payload: { message: `This is a test event from ${platformName}.` },
  });
}

/** `POST …/webhook-endpoints/{id}/test` (§9): a webhook.test that goes to this endpoint alone, through the same path. */
export async function sendEndpointTest(deps: EndpointDeps, partnerId: string, id: string, platformName: string): Promise<string> {
  const { endpoint } = await getEndpoint(deps, partnerId, id);
  return enqueueEvent(deps.pool, 'webhooks', 'partner.notification', {
    partnerId: endpoint.partnerId,
    type: 'webhook.test',
    orderId: null,
    payload: { message: `This is a test event from ${platformName}.` },
    endpointId: endpoint.id,
  });
}
