import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { platform, until } from './client.js';

/**
 * Mail requests to any of `emails` still in the platform's MAIL work queue.
 * A request leaves the queue only when the mailer acknowledges it, and only
 * an unacknowledged request is ever redelivered: at 0, no further copy of a
 * mail to these addresses can arrive.
 */
export async function queuedMailTo(emails: string[]): Promise<number> {
  const wanted = new Set(emails.map((e) => e.toLowerCase()));
  const nc = await connect({ servers: platform.natsUrl ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  try {
    const jsm = await jetstreamManager(nc);
    const stream = `${platform.namespace.toUpperCase()}_MAIL`;
    const { state } = await jsm.streams.info(stream);
    let queued = 0;
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
      // Acknowledged requests are deleted from the middle of the range.
      const message = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (message && wanted.has((message.json() as { data: { to: string } }).data.to.toLowerCase())) queued += 1;
    }
    return queued;
  } finally {
    await nc.close();
  }
}

/** Waits until every mail request to `emails` has been acknowledged, so a count of received mails is final. */
export function untilMailSettled(emails: string[], timeoutMs = 15_000): Promise<true> {
  return until(async () => ((await queuedMailTo(emails)) === 0 ? true : undefined), `every mail request to ${emails.join(', ')} to be acknowledged`, timeoutMs);
}
