import { setTimeout as sleep } from 'node:timers/promises';
import { sign } from '@esim/supplier-signature';
import type { Logger } from '@esim/telemetry';
import type { SupplierNotification } from '../domain/state.js';

export interface NotifierOptions {
  url: string;
  secret: string;
  logger: Logger;
  /** Attempts per notification before it counts as refused. */
  attempts?: number;
  /** The first pause between attempts; it doubles each time, with jitter. */
  retryDelayMs?: number;
  timeoutMs?: number;
}

/** Why a notification was not accepted, for the log and the 502 message. */
export interface Refusal {
  status?: number;
  reason: string;
}

/**
 * Sends one notification to the platform, signed (contract §13), and says
 * whether it was accepted: 202 (recorded) or 200 (a duplicate the platform
 * already had) both are. A network error, a timeout, 429 or a 5xx is tried
 * again a few times; any other answer (401, 400…) will not change by
 * retrying and is a refusal at once. Each attempt is signed afresh, so a
 * retry never carries a stale timestamp.
 */
export class Notifier {
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: NotifierOptions) {
    this.attempts = options.attempts ?? 4;
    this.retryDelayMs = options.retryDelayMs ?? 200;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async send(notification: Exclude<SupplierNotification, { type: 'es2.progress' }>): Promise<Refusal | undefined> {
    const body = JSON.stringify(notification);
    let refusal: Refusal = { reason: 'not sent' };
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      if (attempt > 1) await sleep(this.retryDelayMs * 2 ** (attempt - 2) * (0.5 + Math.random()));
      const outcome = await this.post(body);
      if (outcome.accepted) return undefined;
      refusal = outcome.refusal;
      if (!outcome.retryable) break;
    }
    this.options.logger.warn({ notificationId: notification.id, type: notification.type, ...refusal }, 'the platform refused a supplier notification');
    return refusal;
  }

  private async post(body: string): Promise<{ accepted: true } | { accepted: false; retryable: boolean; refusal: Refusal }> {
    try {
      const response = await fetch(this.options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'esim-supplier-sim',
          'x-supplier-signature': sign(this.options.secret, body),
        },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'manual',
      });
      // The answer's body says nothing the status does not; it is not read (no size to bound).
      await response.body?.cancel();
      if (response.status === 202 || response.status === 200) return { accepted: true };
      const retryable = response.status === 429 || response.status >= 500;
      return { accepted: false, retryable, refusal: { status: response.status, reason: `answered ${response.status}` } };
    } catch (error) {
      const reason = error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'could not be reached';
      return { accepted: false, retryable: true, refusal: { reason } };
    }
  }
}
