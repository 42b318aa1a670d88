// Protects the audit of an operator's webhook-endpoint changes (§9, §10): each is written in its transaction with the credential's actor and the X-Operator header as a note; a partner's own change through the portal is not an operator action and writes none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestWebhooks } from './support/testEnv.js';

let env: TestEnv;
let service: TestWebhooks;

beforeAll(async () => {
  env = await createTestEnv();
  service = await env.start({ WEBHOOK_RETRY_SCHEDULE: '1h' });
});
afterAll(() => env?.cleanup());

const audited = (partnerId: string) =>
  env.query<{ data: { action: string; target: string; operator: string; requestId: string; note: string; details: Record<string, unknown> } }>(
    `SELECT payload->'data' AS data FROM webhooks.outbox WHERE subject = 'audit.recorded' AND payload->'data'->'details'->>'partnerId' = $1 ORDER BY seq`,
    [partnerId],
  );

describe('endpoint changes by an operator', () => {
  it('when an operator creates, updates and deletes an endpoint, then each is audited with the operator from the credential and the note', async () => {
    const partner = env.addPartner();
    const audit = { operator: 'opr_00000000000000000000000007', requestId: 'req_endpoint', note: 'ticket 42' };
    const created = await service.client.createEndpoint({ partnerId: partner.id, url: env.receiver.url(`${partner.path}/a`), description: 'a', allEventTypes: true, eventTypes: [], audit });
    const id = created.endpoint!.id;
    await service.client.updateEndpoint({ partnerId: partner.id, id, description: 'b', audit: { ...audit, note: '' } });
    await service.client.deleteEndpoint({ partnerId: partner.id, id, audit });
    const rows = (await audited(partner.id)).map((row) => row.data);
    expect(rows.map((row) => [row.action, row.target, row.operator, row.note])).toEqual([
      ['webhook_endpoint.created', id, audit.operator, 'ticket 42'],
      ['webhook_endpoint.updated', id, audit.operator, ''],
      ['webhook_endpoint.deleted', id, audit.operator, 'ticket 42'],
    ]);
  });

  it('when the partner changes its own endpoint (no audit context), then nothing is audited', async () => {
    const partner = env.addPartner();
    const created = await service.client.createEndpoint({ partnerId: partner.id, url: env.receiver.url(`${partner.path}/own`), description: 'own', allEventTypes: true, eventTypes: [] });
    await service.client.deleteEndpoint({ partnerId: partner.id, id: created.endpoint!.id });
    expect(await audited(partner.id)).toEqual([]);
  });
});
