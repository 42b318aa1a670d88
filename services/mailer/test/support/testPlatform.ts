import { randomBytes } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectNats, ensureStreams, enqueueEvent, namespace, startOutboxRelay, type EventData, type Namespace, type NatsConnection } from '@esim/events';
import { createPool, ensureDatabase, type Pool } from '@esim/postgres';
import { createLogger } from '@esim/telemetry';

const postgresUrl = 'postgres://postgres@127.0.0.1:5432';
const natsUrl = 'nats://127.0.0.1:4222';
/** The test plays the publisher (the partners service in production) with its own outbox schema. */
const publisherSchema = 'mailtest';

export interface TestPlatform {
  databaseUrl: string;
  natsUrl: string;
  namespace: string;
  ns: Namespace;
  pool: Pool;
  nc: NatsConnection;
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

/** A fresh database and NATS namespace of its own, so runs never see each other's data. */
export async function createTestPlatform(): Promise<TestPlatform> {
  const suffix = randomBytes(4).toString('hex');
  const database = `esim_mailer_test_${suffix}`;
  const databaseUrl = `${postgresUrl}/${database}`;
  const nsName = `mt${suffix}`;
  const ns = namespace(nsName);
  await ensureDatabase(databaseUrl);
  const pool = createPool(databaseUrl, { applicationName: 'mailer-test', max: 4 });
  // The outbox DDL of services/partners/migrations.
  await pool.query(`CREATE SCHEMA ${publisherSchema};
    CREATE TABLE ${publisherSchema}.outbox (
      seq bigserial PRIMARY KEY,
      id text NOT NULL UNIQUE,
      subject text NOT NULL,
      payload jsonb NOT NULL,
      headers jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      published_at timestamptz
    );
    CREATE INDEX outbox_unpublished ON ${publisherSchema}.outbox (seq) WHERE published_at IS NULL;`);
  const nc = await connectNats(natsUrl, 'mailer-test');
  const jsm = await ensureStreams(nc, ns, ['MAIL']);
  const relay = startOutboxRelay({ pool, schema: publisherSchema, nc, ns, logger: createLogger('mailer-test', 'silent'), pollMs: 50 });

  return {
    databaseUrl,
    natsUrl,
    namespace: nsName,
    ns,
    pool,
    nc,
    requestMail: (data) => enqueueEvent(pool, publisherSchema, 'mail.requested', data),
    async republish(eventId) {
      const { rows } = await pool.query<{ payload: unknown }>(`SELECT payload FROM ${publisherSchema}.outbox WHERE id = $1`, [eventId]);
      await jetstream(nc).publish(ns.subject('mail.requested'), JSON.stringify(rows[0]?.payload), { msgID: `${eventId}-again`, timeout: 5_000 });
    },
    mailStreamMessages: async () => (await jsm.streams.info(ns.stream('MAIL'))).state.messages,
    async destroy() {
      await relay.stop();
      const manager = await jetstreamManager(nc);
      const prefix = ns.stream('');
      for await (const stream of manager.streams.list()) {
        if (stream.config.name.startsWith(prefix)) await manager.streams.delete(stream.config.name);
      }
      await nc.close();
      await pool.end();
      const admin = createPool(`${postgresUrl}/postgres`, { applicationName: 'mailer-test', max: 1 });
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).finally(() => admin.end());
    },
  };
}
