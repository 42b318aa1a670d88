import type { ServiceHandlers } from '@esim/grpc';
import type { Pool } from '@esim/postgres';
import type { webhooksV1 } from '@esim/proto';
import type { EndpointView } from '../domain/endpoint.js';
import { createEndpoint, deleteEndpoint, listEndpoints, rotateEndpointSecret, updateEndpoint, type EndpointDeps } from '../domain/endpoints.js';
import { listDeliveries } from '../domain/listDeliveries.js';
import type { AuditContext } from '../domain/partnersPort.js';
import { recoverEndpoint } from '../domain/recoverEndpoint.js';
import { retryDelivery } from '../domain/retryDelivery.js';
import { sendEndpointTest, sendTestEvent } from '../domain/sendTestEvent.js';
import { deliveryMessage, endpointMessage } from './views.js';

export interface WebhooksDeps {
  pool: Pool;
  platformName: string;
  endpoints: EndpointDeps;
}

const auditOf = (audit: { operator: string; requestId: string; note: string } | undefined): AuditContext | undefined =>
  audit ? { operator: audit.operator, requestId: audit.requestId, note: audit.note } : undefined;
const eventTypesOf = (request: { allEventTypes: boolean; eventTypes: string[] }) => (request.allEventTypes ? null : request.eventTypes);
const withSecret = ({ endpoint, secret }: { endpoint: EndpointView; secret: string }) => ({ endpoint: endpointMessage(endpoint), secret });

type WebhooksMethods = (typeof webhooksV1.WebhooksService)['method'];

/** Transport only: each RPC converts its message, calls one use case, converts the answer. */
export function webhooksHandlers(deps: WebhooksDeps): ServiceHandlers<WebhooksMethods> {
  return {
    async listDeliveries(request) {
      const { deliveries, total } = await listDeliveries(deps.pool, {
        partnerId: request.partnerId,
        livemode: request.livemode,
        endpointId: request.endpointId,
        status: request.status,
        page: request.page?.page ?? 1,
        limit: request.page?.limit ?? 20,
      });
      return { deliveries: deliveries.map(deliveryMessage), total };
    },
    async retryDelivery(request) {
      const audit = { operator: request.audit?.operator ?? '', requestId: request.audit?.requestId ?? '', note: request.audit?.note ?? '' };
      return deliveryMessage(await retryDelivery(deps.pool, request.id, audit));
    },
    async sendTestEvent(request) {
      return { eventId: await sendTestEvent(deps.pool, request.partnerId, deps.platformName) };
    },
    async listEndpoints(request) {
      return { endpoints: (await listEndpoints(deps.endpoints, request.partnerId)).map(endpointMessage) };
    },
    async createEndpoint(request) {
      const input = { url: request.url, description: request.description, eventTypes: eventTypesOf(request), enabled: request.enabled ?? true };
      return withSecret(await createEndpoint(deps.endpoints, request.partnerId, input, auditOf(request.audit)));
    },
    async updateEndpoint(request) {
      const patch = {
        url: request.url,
        description: request.description,
        eventTypes: request.setEventTypes ? eventTypesOf(request) : undefined,
        enabled: request.enabled,
      };
      return endpointMessage(await updateEndpoint(deps.endpoints, request.partnerId, request.id, patch, auditOf(request.audit)));
    },
    async deleteEndpoint(request) {
      await deleteEndpoint(deps.endpoints, request.partnerId, request.id, auditOf(request.audit));
      return {};
    },
    async rotateEndpointSecret(request) {
      return withSecret(await rotateEndpointSecret(deps.endpoints, request.partnerId, request.id, request.overlapHours, auditOf(request.audit)));
    },
    async recoverEndpoint(request) {
      return { queued: await recoverEndpoint(deps.endpoints, request.partnerId, request.id, request.since, auditOf(request.audit)) };
    },
    async sendEndpointTest(request) {
      return { eventId: await sendEndpointTest(deps.endpoints, request.partnerId, request.id, deps.platformName) };
    },
  };
}
