import { jetstream } from '@nats-io/jetstream';
import { enqueueEvent, ensureStreams, migrateEventTables, startOutboxRelay, type EventData, type Namespace } from '@esim/events';
import type { Pool } from '@esim/postgres';
import { createLogger } from '@esim/telemetry';
import { createTestInfra, natsUrl } from '@esim/testing';

/** The test plays the publisher (the partners service in production) with its own outbox schema. */
const publisherSchema = 'mailtest';

export interface TestPlatform {
  databaseUrl: string;
  natsUrl: string;
  namespace: string;
  ns: Namespace;
  pool: Pool;
  /** Writes a mail request to the test outbox; the relay publishes it with Nats-Msg-Id = event id. */
  requestMail(data: EventData<'mail.requested'>): Promise<string>;
  /**
   * Publishes an already relayed event again under a new Nats-Msg-Id, as a
   * republish after the stream's duplicate window would: only the
   * consumer's own idempotency can stop it.
   */
  republish(eventId: string): Promise<void>;
  /** Messages still in the MAIL work-queue stream (acknowledged ones are deleted). */
  mailStreamMessages(): Promise<number>;
  /** Stops the relay, deletes this namespace's streams and drops the database. */
  destroy(): Promise<void>;
}

/** A fresh database and NATS namespace of its own (see @esim/testing), so runs never see each other's data. */
export async function createTestPlatform(): Promise<TestPlatform> {
  const infra = await createTestInfra('mailer');
  const { ns, pool } = infra;
  // The same outbox every service schema gets, so the real relay publishes from it.
  await migrateEventTables(infra.databaseUrl, publisherSchema);
  const nc = await infra.nats();
  const jsm = await ensureStreams(nc, ns, ['MAIL']);
  const relay = startOutboxRelay({ pool, schema: publisherSchema, nc, ns, logger: createLogger('mailer-test', 'silent'), pollMs: 50 });
  infra.defer(() => relay.stop());

  return {
    databaseUrl: infra.databaseUrl,
    natsUrl,
    namespace: infra.namespace,
    ns,
    pool,
    requestMail: (data) => enqueueEvent(pool, publisherSchema, 'mail.requested', data),
    async republish(eventId) {
      const { rows } = await pool.query<{ payload: unknown }>(`SELECT payload FROM ${publisherSchema}.outbox WHERE id = $1`, [eventId]);
      await jetstream(nc).publish(ns.subject('mail.requested'), JSON.stringify(rows[0]?.payload), { msgID: `${eventId}-again`, timeout: 5_000 });
    },
    mailStreamMessages: async () => (await jsm.streams.info(ns.stream('MAIL'))).state.messages,
    destroy: infra.cleanup,
  };
}
