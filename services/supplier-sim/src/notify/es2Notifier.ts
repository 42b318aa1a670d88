import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminProtocol } from '@esim/es2plus';
import type { Logger } from '@esim/telemetry';
import type { SupplierNotification } from '../domain/state.js';
import type { Refusal } from './notifier.js';

export interface Es2NotifierOptions {
  /** The platform's ES2+ listener: `<base>/gsma/rsp2/es2plus/handleDownloadProgressInfo`. */
  url: string;
  /** The SM-DP+'s functionRequesterIdentifier. */
  requesterId: string;
  /** PEM: the simulator's client identity and the CA it checks the platform's listener against (https URLs). */
  tls?: { cert: string; key: string; ca: string } | undefined;
  logger: Logger;
  attempts?: number;
  retryDelayMs?: number;
  timeoutMs?: number;
}

/**
 * The SM-DP+'s ES2+ HandleDownloadProgressInfo to the platform (SGP.22
 * §5.3.5): one call per notification, its functionCallIdentifier derived
 * from the notification id, so every retry is the same call and the
 * platform records it once. 204 is accepted; a network error, a timeout or
 * a 5xx is tried again a few times; anything else is a refusal.
 */
export class Es2Notifier {
  private readonly agent: Agent | undefined;

  constructor(private readonly options: Es2NotifierOptions) {
    this.agent = options.tls ? new Agent({ cert: options.tls.cert, key: options.tls.key, ca: options.tls.ca, keepAlive: true }) : undefined;
  }

  async send(notification: Extract<SupplierNotification, { type: 'es2.progress' }>): Promise<Refusal | undefined> {
    const body = JSON.stringify({
      header: { functionRequesterIdentifier: this.options.requesterId, functionCallIdentifier: `hdpi-${notification.id}` },
      ...notification.body,
    });
    const attempts = this.options.attempts ?? 4;
    let refusal: Refusal = { reason: 'not sent' };
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep((this.options.retryDelayMs ?? 200) * 2 ** (attempt - 2) * (0.5 + Math.random()));
      const outcome = await this.post(body);
      if (outcome.status === 204) return undefined;
      refusal = { ...(outcome.status ? { status: outcome.status } : {}), reason: outcome.status ? `answered ${outcome.status}` : outcome.reason };
      if (outcome.status !== undefined && outcome.status < 500) break;
    }
    this.options.logger.warn({ notificationId: notification.id, ...refusal }, 'the platform refused an ES2+ HandleDownloadProgressInfo');
    return refusal;
  }

  private post(body: string): Promise<{ status?: number; reason: string }> {
    const url = new URL(this.options.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      const req = send(
        url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'x-admin-protocol': adminProtocol, 'content-length': Buffer.byteLength(body), 'user-agent': 'esim-supplier-sim' },
          timeout: this.options.timeoutMs ?? 10_000,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: 'answered' }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (error) => resolve({ reason: error.message === 'timed out' ? 'timed out' : 'could not be reached' }));
      req.end(body);
    });
  }
}

/** Routes each notification to its channel: ES2+ progress to the platform's ES2+ listener, the rest to the connectivity notification URL. */
export function sender(connectivity: { send(n: SupplierNotification): Promise<Refusal | undefined> }, es2: Es2Notifier | undefined) {
  return {
    es2: es2 !== undefined,
    send(notification: SupplierNotification): Promise<Refusal | undefined> {
      if (notification.type === 'es2.progress') {
        return es2 ? es2.send(notification) : Promise.resolve({ reason: 'SMDP_NOTIFY_URL is not set' });
      }
      return connectivity.send(notification);
    },
  };
}
