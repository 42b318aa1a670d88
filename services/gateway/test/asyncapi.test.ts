// GET /asyncapi.json (#19): a valid AsyncAPI 3.0 document, one message per partner event type, payloads from the events' zod schemas.
import { Parser } from '@asyncapi/parser';
import { beforeAll, expect, it } from 'vitest';
import { partnerNotification } from '@esim/events';
import { readServedDocuments, type ServedDocuments } from '../../../scripts/sdk/servedDocuments.js';

let docs: ServedDocuments;
beforeAll(async () => {
  docs = await readServedDocuments();
});

it('when parsed with the AsyncAPI parser, then it is valid 3.0 with no error or warning', async () => {
  const { document, diagnostics } = await new Parser().parse(JSON.stringify(docs.asyncapi));
  // Severity 0 is an error, 1 a warning; 2 and 3 are hints (such as "3.1 exists").
  expect(diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`)).toEqual([]);
  expect(document?.version()).toBe('3.0.0');
  expect(document?.operations().all().map((o) => o.action())).toEqual(['send']);
});

it('when read, then every type of the events’ own union has a message whose payload fixes that type and carries id, createdAt, livemode and data', () => {
  const types = partnerNotification.options.map((o) => (o.shape.type as { value: string }).value);
  expect(types.length).toBeGreaterThanOrEqual(5);
  const messages = docs.asyncapi.components.messages;
  expect(Object.keys(messages).sort()).toEqual([...types].sort());
  for (const type of types) {
    const payload = docs.asyncapi.components.schemas[messages[type].payload.$ref.split('/').at(-1)];
    expect(payload.properties.type.const).toBe(type);
    expect(payload.required).toEqual(['id', 'type', 'createdAt', 'livemode', 'data']);
    expect(messages[type].headers.$ref).toBe('#/components/schemas/WebhookHeaders');
  }
  const provisioned = docs.asyncapi.components.schemas.ProvisionProvisionedEvent;
  expect(provisioned.properties.data.properties.order.$ref).toBe('#/components/schemas/WebhookOrder');
  expect(docs.asyncapi.components.schemas.WebhookOrder.properties).not.toHaveProperty('qrCode');
});
