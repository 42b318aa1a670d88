import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type pg from 'pg';
import { platform } from '../../e2e/support/client.js';

/**
 * What the platform knows of events that never reached the webhook
 * receiver: the webhooks service's rows for each (event, delivery, whether
 * its consumer recorded it) and the JetStream consumer's counters, so a
 * failed run says where the event stopped instead of only that it did.
 */
export async function explainUndelivered(pool: pg.Pool, eventIds: string[]): Promise<string> {
  if (eventIds.length === 0) return '';
  const lines: string[] = [];
  const { rows } = await pool.query(
    `SELECT e.id, e.type, e.order_id, e.created_at, e.received_at, d.status, d.attempts, d.last_error, d.next_attempt_at, d.locked_until, d.delivered_at,
            (SELECT array_agg(consumer) FROM webhooks.processed_events p WHERE p.event_id = e.id) AS consumed_by
       FROM webhooks.events e LEFT JOIN webhooks.deliveries d ON d.event_id = e.id WHERE e.id = ANY($1)`,
    [eventIds],
  );
  for (const id of eventIds) {
    const row = rows.find((r) => r.id === id);
    lines.push(row ? `${id}: ${JSON.stringify(row)}` : `${id}: not in webhooks.events (never consumed)`);
  }
  const nc = await connect({ servers: platform.natsUrl.split(',') });
  try {
    const jsm = await jetstreamManager(nc);
    const stream = `${platform.namespace.toUpperCase()}_PARTNER_EVENTS`;
    for await (const info of jsm.consumers.list(stream)) {
      lines.push(`consumer ${info.name}: pending ${info.num_pending}, ack pending ${info.num_ack_pending}, redelivered ${info.num_redelivered}, delivered ${JSON.stringify(info.delivered)}, ack floor ${JSON.stringify(info.ack_floor)}`);
    }
    const dead = await jsm.streams.info(`${platform.namespace.toUpperCase()}_DEAD_LETTERS`).catch(() => undefined);
    lines.push(`dead letters: ${dead?.state.messages ?? 'no stream'}`);
  } finally {
    await nc.close();
  }
  return lines.join('\n');
}
