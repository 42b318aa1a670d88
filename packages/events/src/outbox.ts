import { context, metrics, propagation } from '@opentelemetry/api';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core';
import { jetstream } from '@nats-io/jetstream';
import type pg from 'pg';
import { newId } from '@esim/ids';
import { listenFor, notifyAfterCommit, type Pool, type Queryable } from '@esim/postgres';
import type { Logger } from '@esim/telemetry';
import { events, type EventData, type EventEnvelope, type EventType } from './contracts.js';
import type { Namespace } from './namespace.js';
import { laneOf, laneSubject, lanes as allLanes, servedLanes, type Lane } from './lanes.js';
import { OutboxFloor } from './outboxFloor.js';

/**
 * The transactional outbox. `enqueueEvent` writes the event in the caller's
 * transaction, beside the state change it announces; the relay publishes
 * committed rows to JetStream with `Nats-Msg-Id` = event id, so a row
 * published twice (crash after publish, before marking) is dropped by the
 * stream's duplicate window. A test account's saga event goes out on its
 * lane's subject (./lanes.ts).
 *
 * Each service's migrations create `<schema>.outbox` with this shape:
 *   seq bigserial primary key, id text unique, subject text, payload jsonb,
 *   headers jsonb, created_at timestamptz, published_at timestamptz
 */
export async function enqueueEvent<T extends EventType>(db: Queryable, schema: string, type: T, data: EventData<T>): Promise<string> {
  const envelope: EventEnvelope<T> = {
    id: newId('evt'),
    type,
    occurredAt: new Date().toISOString(),
    data: events[type].data.parse(data) as EventData<T>,
  };
  // The request's trace context travels with the event, so the work it causes joins the same trace.
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const lane = laneOf(type, envelope.data);
  await db.query(`INSERT INTO ${schema}.outbox (id, subject, payload, headers) VALUES ($1, $2, $3, $4)`, [
    envelope.id,
    laneSubject(type, lane),
    JSON.stringify(envelope),
    JSON.stringify(carrier),
  ]);
  // The relay hears it once (and only if) the caller's transaction commits, each lane's relay its own lane's.
  await notifyAfterCommit(db, outboxChannel(schema, lane));
  return envelope.id;
}

/**
 * Publishes an event straight to JetStream, for a service with no database
 * and so no outbox (the gateway's own operator actions). There is no state
 * change to commit it with: the caller publishes after its effect, and
 * `Nats-Msg-Id` = event id makes a retried publish land once.
 */
export async function publishEvent<T extends EventType>(nc: NatsConnection, ns: Namespace, type: T, data: EventData<T>): Promise<string> {
  const envelope: EventEnvelope<T> = { id: newId('evt'), type, occurredAt: new Date().toISOString(), data: events[type].data.parse(data) as EventData<T> };
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const h = natsHeaders();
  for (const [key, value] of Object.entries(carrier)) h.set(key, value);
  await jetstream(nc).publish(ns.subject(laneSubject(type, laneOf(type, envelope.data))), JSON.stringify(envelope), { msgID: envelope.id, headers: h, timeout: 5_000 });
  return envelope.id;
}

/** Schema names are spliced into SQL text: only plain identifiers are accepted. */
function plainIdentifier(schema: string): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`outbox schema "${schema}" is not a plain SQL identifier`);
}

/** The LISTEN/NOTIFY channel that wakes a schema's relay of `lane` as soon as an event of that lane commits. */
const outboxChannel = (schema: string, lane: Lane) => (lane === 'live' ? `${schema}_outbox` : `${schema}_outbox_${lane}`);

/** How long a consumer's record of an event is kept (longer than the dead letters' 30 days, which a redrive replays). */
export const processedRetentionDays = 35;
/** How long a published outbox row is kept (operators read what was published lately). */
export const outboxRetentionDays = 1;

/**
 * Deletes up to `batch` outbox rows published more than a day ago. It reads
 * only the `batch` oldest rows (by seq, the primary key): the relay
 * publishes in seq order, so the old published rows are the head of the
 * table, and a prune never walks the day of rows it keeps. An unpublished
 * row is never deleted, however old.
 */
export async function pruneOutbox(db: Queryable, schema: string, batch: number): Promise<number> {
  plainIdentifier(schema);
  const { rowCount } = await db.query(
    `DELETE FROM ${schema}.outbox WHERE seq IN (
       SELECT seq FROM (SELECT seq, published_at FROM ${schema}.outbox ORDER BY seq LIMIT $1) head
       WHERE published_at < now() - interval '${outboxRetentionDays} days')`,
    [batch],
  );
  return rowCount ?? 0;
}

/**
 * The event tables' retention (§11, docs/retention.md), in the shape of the
 * service's retention job (`@esim/service` runs it for every schema, with or
 * without a relay: a service that only consumes still records what it
 * processed). Published rows first: they are the ones a burst leaves.
 */
export function eventTablesRetention(schema: string): Array<{ table: string; prune(db: Queryable, batch: number): Promise<number> }> {
  plainIdentifier(schema);
  return [
    { table: `${schema}.outbox`, prune: (db, batch) => pruneOutbox(db, schema, batch) },
    { table: `${schema}.processed_events`, prune: (db, batch) => pruneProcessedEvents(db, schema, batch) },
  ];
}

/**
 * Contract §11 retention: a consumer's record of an event is needed while the
 * event can come back: JetStream keeps a stream's messages at most 7 days and
 * the dead letters (redriven with the same event id) 30, so 35 days. Deletes
 * up to `batch` of the oldest records past that (index processed_events_age).
 */
export async function pruneProcessedEvents(db: Queryable, schema: string, batch: number): Promise<number> {
  plainIdentifier(schema);
  const { rowCount } = await db.query(
    `DELETE FROM ${schema}.processed_events WHERE (consumer, event_id) IN (
       SELECT consumer, event_id FROM ${schema}.processed_events
       WHERE processed_at < now() - interval '${processedRetentionDays} days' ORDER BY processed_at LIMIT $1)`,
    [batch],
  );
  return rowCount ?? 0;
}

export interface OutboxRelay {
  stop(): Promise<void>;
}

const meter = metrics.getMeter('@esim/events');
const published = meter.createCounter('outbox_events_published_total', { description: 'Events the outbox relay published' });

/** Running relays, so one gauge reports every schema's backlog and a stopped relay stops being scraped. */
const runningRelays = new Set<{ pool: Pool; schema: string }>();
const backlog = meter.createObservableGauge('outbox_backlog', { description: 'Outbox events not yet published' });
// A stuck relay shows as age long before the backlog looks large: 0 when nothing waits.
const oldestAge = meter.createObservableGauge('outbox_oldest_unpublished_age_seconds', { description: 'Age of the oldest outbox event not yet published' });
meter.addBatchObservableCallback(
  async (result) => {
    for (const { pool, schema } of runningRelays) {
      const { rows } = await pool.query<{ n: number; age: number }>(
        `SELECT count(*)::int AS n, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS age FROM ${schema}.outbox WHERE published_at IS NULL`,
      );
      result.observe(backlog, rows[0]?.n ?? 0, { schema });
      result.observe(oldestAge, Math.max(0, rows[0]?.age ?? 0), { schema });
    }
  },
  [backlog, oldestAge],
);

/**
 * Publishes committed outbox rows in order. One relay per schema holds a
 * transaction-scoped advisory lock at a time, so replicas fail over without
 * reordering events. It wakes on the NOTIFY each committed event sends (a
 * few milliseconds from commit to JetStream). The poll is only the safety
 * net: every `idlePollMs` while a connection listens (a notification lost
 * with its connection, a relay replica that lost the lock race), every
 * `pollMs` while none does. At rest a relay costs one indexed read per
 * `idlePollMs` (the locked transaction only when that read finds a row),
 * not ten transactions a second.
 */
export function startOutboxRelay(options: {
  pool: Pool;
  schema: string;
  nc: NatsConnection;
  ns: Namespace;
  logger: Logger;
  /** Poll interval while no connection listens for commits. */
  pollMs?: number;
  /** Poll interval while one does (the safety net). */
  idlePollMs?: number;
  batchSize?: number;
  /**
   * The lanes whose rows this relay publishes (./lanes.ts; default both).
   * A test-mode replica relays test rows only and a live process live rows
   * only, each lane under a lock of its own, so a relay at a lower priority
   * never holds live events back; every lane still has one relay at a time.
   */
  lanes?: readonly Lane[];
}): OutboxRelay {
  const { pool, schema, nc, ns, logger } = options;
  const served = servedLanes(options.lanes);
  if (served.length === 0) throw new RangeError('an outbox relay serves at least one lane');
  const pollMs = options.pollMs ?? 100;
  const idlePollMs = options.idlePollMs ?? 5_000;
  const batchSize = options.batchSize ?? 100;
  const js = jetstream(nc);
  let stopped = false;

  const registration = { pool, schema };
  runningRelays.add(registration);

  plainIdentifier(schema);
  const table = `${schema}.outbox`;
  // The live lane's lock is the one every relay took before lanes, so an older relay and a live one still exclude each other.
  const lockKeys = served.map((lane) => (lane === 'live' ? `'${table}'` : `'${table}.${lane}'`));
  const locked = lockKeys.map((key) => `pg_try_advisory_xact_lock(hashtext(${key}))`).join(' AND ');
  // A test-lane row's subject ends in `.test` (laneSubject); no other subject does.
  const laneFilter = served.length === allLanes.length ? '' : served[0] === 'test' ? ` AND subject LIKE '%.test'` : ` AND subject NOT LIKE '%.test'`;
  /**
   * One round trip opens the transaction, takes the relay's lock and claims
   * the batch (marked published, returned in seq order); the commit follows
   * the acks. A tick was five round trips (BEGIN, lock, select, mark,
   * commit), which at one event per tick made the relay most of its
   * service's Postgres traffic (docs/benchmarks.md, "What each hop costs").
   * Several statements in one text need the simple protocol, hence no
   * parameters: the schema is an identifier checked above, the size and the
   * floor numbers.
   * The statement's snapshot predates the lock, so a row another relay
   * marked and committed in between is skipped by `o.published_at IS NULL`,
   * which Postgres re-checks on the row's newest version before updating it.
   * The scan starts after the floor (./outboxFloor.ts), so it does not walk
   * the entries of rows published lately. For the floor to move, the
   * sequence's last value and then the outbox's writers are read in
   * statements of their own, before the claim's snapshot, and the claim
   * reports what its scan read.
   */
  const claim = (after: bigint) => `BEGIN;
    SELECT pg_sequence_last_value(pg_get_serial_sequence('${table}', 'seq')::regclass)::text AS last_seq;
    SELECT coalesce(array_agg(virtualtransaction), '{}') AS writers FROM pg_locks
      WHERE locktype = 'relation' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND relation = '${table}'::regclass AND mode = 'RowExclusiveLock' AND granted;
    WITH lock AS (SELECT ${locked} AS ok),
    batch AS (SELECT seq FROM ${table} WHERE published_at IS NULL${laneFilter} AND seq > ${after.toString()} AND (SELECT ok FROM lock) ORDER BY seq LIMIT ${Math.trunc(batchSize)}),
    marked AS (
      UPDATE ${table} o SET published_at = now() FROM batch WHERE o.seq = batch.seq AND o.published_at IS NULL
      RETURNING o.seq, o.id, o.subject, o.payload, o.headers
    ),
    scan AS (
      SELECT (SELECT ok FROM lock) AS locked, count(*)::int AS scanned, max(seq)::text AS scanned_max FROM batch
    )
    SELECT scan.*, marked.id, marked.subject, marked.payload, marked.headers FROM scan LEFT JOIN marked ON true ORDER BY marked.seq`;
  const floor = new OutboxFloor();

  interface ClaimRow {
    locked: boolean;
    scanned: number;
    scanned_max: string | null;
    id: string | null;
    subject: string;
    payload: unknown;
    headers: Record<string, string>;
  }

  /** One claim and its publishes; `fromStart` scans the whole index instead of from the floor (the safety-net poll). */
  async function tick(fromStart: boolean): Promise<number> {
    const client = await pool.connect();
    try {
      const results = (await client.query(claim(fromStart ? 0n : floor.value))) as unknown as [
        pg.QueryResult,
        pg.QueryResult<{ last_seq: string | null }>,
        pg.QueryResult<{ writers: string[] }>,
        pg.QueryResult<ClaimRow>,
      ];
      const lastSeq = results[1].rows[0]?.last_seq ?? null;
      const scan = results[3].rows[0]!;
      const rows = results[3].rows.filter((row): row is ClaimRow & { id: string } => row.id !== null);
      const observation = {
        lastSeq: lastSeq === null ? null : BigInt(lastSeq),
        writers: results[2].rows[0]?.writers ?? [],
        scanned: scan.scanned,
        scannedMax: scan.scanned_max === null ? null : BigInt(scan.scanned_max),
        limit: Math.trunc(batchSize),
      };
      if (rows.length === 0) {
        await client.query('COMMIT');
        if (scan.locked) floor.observe(observation);
        return 0;
      }
      // Pipelined: every publish is sent before the first ack is awaited. One
      // connection delivers them to the server in this order, so the stream
      // keeps commit order; a batch costs one round trip, not one per event.
      // Only the prefix acknowledged without a gap stays marked: after a
      // failed publish, the rows behind it are published again on the next
      // tick (the duplicate window drops the copies that did land).
      const acks = await Promise.allSettled(
        rows.map((row) => {
          const h = natsHeaders();
          for (const [key, value] of Object.entries(row.headers ?? {})) h.set(key, value);
          return js.publish(ns.subject(row.subject), JSON.stringify(row.payload), { msgID: row.id, headers: h, timeout: 5_000 });
        }),
      );
      const failedAt = acks.findIndex((ack) => ack.status === 'rejected');
      const done = failedAt === -1 ? rows.length : failedAt;
      for (const row of rows.slice(0, done)) published.add(1, { subject: row.subject });
      if (failedAt !== -1) await client.query(`UPDATE ${table} SET published_at = NULL WHERE id = ANY($1)`, [rows.slice(failedAt).map((row) => row.id)]);
      await client.query('COMMIT');
      if (failedAt !== -1) throw (acks[failedAt] as PromiseRejectedResult).reason;
      floor.observe(observation);
      return rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  // The safety-net poll at rest almost always finds nothing: one indexed read (outbox_unpublished) says so
  // in one statement, where the locked tick costs four and a transaction.
  const anyUnpublished = async () =>
    (await pool.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${schema}.outbox WHERE published_at IS NULL${laneFilter}) AS any`)).rows[0]?.any === true;

  // A notification during a tick is remembered, so the event it announces never waits for the next poll.
  let notified = false;
  let wake: (() => void) | undefined;
  const onNotification = () => {
    notified = true;
    wake?.();
  };
  const idle = () =>
    new Promise<void>((resolve) => {
      if (notified || stopped) return resolve();
      const timer = setTimeout(() => (wake = undefined, resolve()), listener.listening() ? idlePollMs : pollMs);
      wake = () => (clearTimeout(timer), (wake = undefined), resolve());
    });

  const listener = listenFor(pool, served.map((lane) => outboxChannel(schema, lane)), onNotification, (error) =>
    logger.warn({ err: error, schema }, 'outbox relay cannot listen for commits; polling only'),
  );

  const loop = (async () => {
    // At start, after a notification and after a full batch there is work to expect: tick at once.
    let expectWork = true;
    while (!stopped) {
      await listener.ensure();
      expectWork ||= notified;
      notified = false;
      let count = 0;
      try {
        // Woken by the timer, not by a commit: the safety net, which reads the whole index rather than trust the floor.
        if (expectWork) count = await tick(false);
        else if (await anyUnpublished()) count = await tick(true);
      } catch (error) {
        logger.warn({ err: error, schema }, 'outbox relay tick failed; retrying');
      }
      expectWork = count >= batchSize;
      if (!expectWork && !stopped) await idle();
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      runningRelays.delete(registration);
      await loop;
      await listener.stop();
    },
  };
}
