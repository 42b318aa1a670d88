// Protects the audit log's entries from other services (§10): an `audit.recorded` event (a plan edit, a top-up, a delivery retry) joins the log with the actor it names and the X-Operator header as its note, once however often it is delivered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataKey } from '@esim/crypto';
import { partnersV1 } from '@esim/proto';
import { createTestInfra, until, type ServedService, type TestInfra } from '@esim/testing';
import { partnersService } from '../src/app.js';
import type { Config } from '../src/config.js';

let infra: TestInfra;
let service: ServedService<Config, (typeof partnersV1.PartnersService)['method']>;

beforeAll(async () => {
  infra = await createTestInfra('partners', { poolSize: 2 });
  service = await infra.serve(partnersService, partnersV1.PartnersService, { DATA_ENCRYPTION_KEY: generateDataKey(), PASSWORD_HASH_COST: '1024' });
});
afterAll(() => infra?.cleanup());

async function entryFor(target: string): Promise<partnersV1.AuditEntry> {
  let found: partnersV1.AuditEntry | undefined;
  await until(async () => {
    const { entries } = await service.client.listAuditEntries({ page: { page: 1, limit: 100 } });
    found = entries.find((entry) => entry.target === target);
    return found !== undefined;
  }, `the audit entry of ${target}`);
  return found!;
}

const detailsOf = (entry: partnersV1.AuditEntry) => Object.fromEntries(Object.entries(entry.details).map(([name, detail]) => [name, detail.value.value]));

describe('audit.recorded from another service', () => {
  it('when it carries an X-Operator note, then the entry names the credential’s actor and keeps the note among its details, once', async () => {
    const data = {
      action: 'plan.updated',
      target: 'pln_auditnote',
      operator: 'opr_00000000000000000000000001',
      requestId: 'req_note',
      note: 'ticket 42',
      details: { name: 'Andorra' },
      occurredAt: new Date().toISOString(),
    };
    const event = await infra.publish('audit.recorded', data);
    await infra.publish('audit.recorded', data, { id: event.id, msgId: `${event.id}-again` });
    const entry = await entryFor('pln_auditnote');
    expect(entry).toMatchObject({ action: 'plan.updated', operator: 'opr_00000000000000000000000001', requestId: 'req_note' });
    expect(detailsOf(entry)).toEqual({ name: 'Andorra', note: 'ticket 42' });
    const { entries } = await service.client.listAuditEntries({ page: { page: 1, limit: 100 } });
    expect(entries.filter((e) => e.target === 'pln_auditnote')).toHaveLength(1);
  });

  it('when it carries no note (an older producer), then the entry has no note', async () => {
    const data = { action: 'wallet.topup', target: 'ptn_auditnonote', operator: 'admin-token', requestId: 'req_none', details: { amount: 5 }, occurredAt: new Date().toISOString() };
    await infra.publish('audit.recorded', data as never);
    expect(detailsOf(await entryFor('ptn_auditnonote'))).toEqual({ amount: 5 });
  });
});
