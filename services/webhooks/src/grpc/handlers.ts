import type { ServiceHandlers } from '@esim/grpc';
import type { Pool } from '@esim/postgres';
import type { webhooksV1 } from '@esim/proto';
import { listDeliveries } from '../domain/listDeliveries.js';
import { retryDelivery } from '../domain/retryDelivery.js';
import { sendTestEvent } from '../domain/sendTestEvent.js';
import { deliveryMessage } from './views.js';

export interface WebhooksDeps {
  pool: Pool;
  platformName: string;
}

type WebhooksMethods = (typeof webhooksV1.WebhooksService)['method'];

/** Transport only: each RPC converts its message, calls one use case, converts the answer. */
export function webhooksHandlers(deps: WebhooksDeps): ServiceHandlers<WebhooksMethods> {
  return {
    async listDeliveries(request) {
      const { deliveries, total } = await listDeliveries(deps.pool, {
        partnerId: request.partnerId,
        status: request.status,
        page: request.page?.page ?? 1,
        limit: request.page?.limit ?? 20,
      });
      return { deliveries: deliveries.map(deliveryMessage), total };
    },
    async retryDelivery(request) {
      const audit = { operator: request.audit?.operator ?? '', requestId: request.audit?.requestId ?? '' };
      return deliveryMessage(await retryDelivery(deps.pool, request.id, audit));
    },
    async sendTestEvent(request) {
      return { eventId: await sendTestEvent(deps.pool, request.partnerId, deps.platformName) };
    },
  };
}
