import { z } from 'zod';
import { ledgerEntryView, partnerNotification, partnerOrderView } from '@esim/events';

/**
 * The AsyncAPI 3.0 document of the webhooks a partner receives (contract
 * §9, §13), served at GET /asyncapi.json. Each message's payload is built
 * from the zod schema the webhooks service builds that event's `data` with
 * (`partnerNotification` in @esim/events), so a new member of that union is
 * documented, and typed in the SDK, without a change here.
 */

/** What the contract's table says of each type; a type not listed here is still documented, with a plainer summary. */
const summaries: Record<string, string> = {
  'payment.paid': 'The wallet debit for an order is recorded',
  'provision.provisioned': 'The eSIM is ready: the order carries its activation code',
  'provision.failed': 'Provisioning failed for good and the refund is recorded',
  'wallet.credited': 'An operator top-up is recorded',
  'webhook.test': 'You asked for a test (POST /partner/me/webhook/test)',
  'esim.installed': 'The supplier reports the profile downloaded to a device',
  'esim.usage_threshold': 'A bundle’s use reached 80 % and again 100 % of its data',
  'esim.bundle_expired': 'The supplier reports a bundle’s validity over',
  'order.cancelled': 'A cancellation and its refund are recorded',
  'wallet.balance_low': 'A debit took your wallet below your lowBalanceThreshold (once per crossing)',
  'webhook.endpoint_disabled': 'One of your webhook endpoints was disabled for failing (sent to your other endpoints)',
  'esim.install_failed': 'The SM-DP+ reports a failed download or installation (the eSIM stays released; see lastError)',
  'esim.deleted': 'The SM-DP+ reports the profile deleted from the device',
  'esim.suspended': 'You suspended the eSIM (POST /partner/esims/{iccid}/suspend)',
  'esim.resumed': 'You resumed the eSIM (POST /partner/esims/{iccid}/resume)',
};

/** `esim.usage_threshold` → `EsimUsageThresholdEvent`. */
const schemaName = (type: string) => `${type.replace(/(^|[._])([a-z])/g, (_, _s, c: string) => c.toUpperCase())}Event`;

const headerSchema = {
  type: 'object',
  required: ['X-SERVICE-Signature', 'X-SERVICE-Event-Id', 'X-SERVICE-Event-Type', 'X-SERVICE-Delivery-Attempt', 'webhook-id', 'webhook-timestamp', 'webhook-signature'],
  properties: {
    'X-SERVICE-Signature': { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Lowercase hex HMAC-SHA256 of the raw body, keyed with your whole whsec_… secret as UTF-8' },
    'X-SERVICE-Event-Id': { type: 'string', description: 'The event id (the body’s `id`): dedupe by it' },
    'X-SERVICE-Event-Type': { type: 'string', description: 'The body’s `type`' },
    'X-SERVICE-Delivery-Attempt': { type: 'string', pattern: '^[1-9][0-9]*$', description: '1 on the first attempt, then 2, 3, …' },
    'webhook-id': { type: 'string', description: 'Standard Webhooks: the event id' },
    'webhook-timestamp': { type: 'string', pattern: '^[0-9]+$', description: 'Standard Webhooks: Unix seconds of this attempt' },
    'webhook-signature': {
      type: 'string',
      description:
        'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with the bytes after `whsec_`; during a secret rotation’s overlap `v1,<new> v1,<old>` (space-separated): accept either',
    },
    'X-SERVICE-Signature-Previous': {
      type: 'string',
      pattern: '^[0-9a-f]{64}$',
      description: 'During a secret rotation’s overlap only: the X-SERVICE-Signature computed with the old secret',
    },
  },
};

type JsonSchema = Record<string, unknown>;

/** Each event's body schema `{ id, type, createdAt, livemode, data }`, and the shared views they reference, as JSON Schema draft 7. */
export function webhookEventSchemas(): { events: { type: string; name: string }[]; schemas: Record<string, JsonSchema> } {
  const registry = z.registry<{ id: string }>();
  registry.add(partnerOrderView, { id: 'WebhookOrder' });
  registry.add(ledgerEntryView, { id: 'LedgerEntry' });
  const events: { type: string; name: string }[] = [];
  for (const option of partnerNotification.options) {
    const type = (option.shape.type as z.ZodLiteral<string>).value;
    const name = schemaName(type);
    events.push({ type, name });
    const body = z.object({
      id: z.string().describe('The event id (`evt_…`): delivery is at least once, so dedupe by it'),
      type: z.literal(type),
      createdAt: z.string().describe('When it happened, ISO 8601'),
      livemode: z.boolean().describe('false: a test-mode event (§14), sent only to the test endpoints (the testWebhookUrl, signed with the test signing secret)'),
      data: option.shape.payload,
    });
    registry.add(body, { id: name });
  }
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-7', io: 'output', uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' });
  for (const schema of Object.values(schemas)) {
    delete (schema as JsonSchema).$schema;
    delete (schema as JsonSchema).$id;
    delete (schema as JsonSchema).id;
    allowNewFields(schema);
  }
  return { events, schemas: schemas as Record<string, JsonSchema> };
}

/** zod's output objects say `additionalProperties: false`; a receiver must accept the fields we add later (§9 evolves additively). */
function allowNewFields(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(allowNewFields);
  if (value === null || typeof value !== 'object') return;
  if ((value as JsonSchema).additionalProperties === false) delete (value as JsonSchema).additionalProperties;
  Object.values(value).forEach(allowNewFields);
}

export function asyncApiDocument(): Record<string, unknown> {
  const { events, schemas } = webhookEventSchemas();
  const messages = Object.fromEntries(
    events.map(({ type, name }) => [
      type,
      {
        name: type,
        title: type,
        summary: summaries[type] ?? `The \`${type}\` event`,
        contentType: 'application/json',
        headers: { $ref: '#/components/schemas/WebhookHeaders' },
        payload: { $ref: `#/components/schemas/${name}` },
      },
    ]),
  );
  const messageRefs = (prefix: string) => events.map(({ type }) => ({ $ref: `${prefix}/${type}` }));
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Partner webhooks',
      version: '1.0.0',
      description:
        'The events the platform POSTs to your `webhookUrl` (contract §9). Each is signed twice: `X-SERVICE-Signature` and the Standard Webhooks headers; verify the raw body before acting (`webhooks.verify` in @esim/sdk). Delivery is at least once (dedupe by `id`) and retried on failure; a 2xx answer is success.',
      license: { name: 'Proprietary', url: 'https://reseller.example/terms' },
    },
    defaultContentType: 'application/json',
    servers: {
      partner: { host: 'reseller.example', pathname: '/webhooks/esim', protocol: 'https', description: 'Your endpoint: the webhookUrl you registered (an example here)' },
    },
    channels: {
      webhooks: {
        address: null,
        title: 'Your webhook URL',
        description: 'Every event is a POST of the JSON body to your webhookUrl.',
        servers: [{ $ref: '#/servers/partner' }],
        messages: Object.fromEntries(events.map(({ type }) => [type, { $ref: `#/components/messages/${type}` }])),
      },
    },
    operations: {
      sendWebhookEvent: {
        action: 'send',
        title: 'POST an event to your webhookUrl',
        channel: { $ref: '#/channels/webhooks' },
        messages: messageRefs('#/channels/webhooks/messages'),
        bindings: { http: { method: 'POST', bindingVersion: '0.3.0' } },
      },
    },
    components: { schemas: { ...schemas, WebhookHeaders: headerSchema }, messages },
  };
}
