// Protects the mailer's retention (§11, docs/retention.md): the record of a mail sent goes after 90 days, in batches; recent ones stay.
import { fileURLToPath } from 'node:url';
import { migrate } from '@esim/postgres';
import { runRetention } from '@esim/service';
import { createTestInfra, type TestInfra } from '@esim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailerRetention } from '../src/store/retentionStore.js';

let infra: TestInfra;

beforeAll(async () => {
  infra = await createTestInfra('mailerretention');
  await migrate({ connectionString: infra.databaseUrl, schema: 'mailer', dir: fileURLToPath(new URL('../migrations', import.meta.url)) });
});
afterAll(() => infra?.cleanup());

describe('sent messages retention', () => {
  it('when mails were sent more than 90 days ago, then the job deletes their records in batches; recent ones stay', async () => {
    const sent = (eventId: string, ageDays: number) =>
      infra.query(
        `INSERT INTO mailer.sent_messages (event_id, recipient_masked, template, transport, sent_at) VALUES ($1, 'a***@example.com', 'welcome', 'file', now() - $2 * interval '1 day')`,
        [eventId, ageDays],
      );
    for (let i = 0; i < 5; i++) await sent(`evt_old_${i}`, 91 + i);
    await sent('evt_recent', 89);

    expect(await runRetention(infra.pool, mailerRetention, { batch: 2 })).toEqual({ 'mailer.sent_messages': 5 });
    expect((await infra.query<{ event_id: string }>('SELECT event_id FROM mailer.sent_messages')).map((row) => row.event_id)).toEqual(['evt_recent']);
  });
});
