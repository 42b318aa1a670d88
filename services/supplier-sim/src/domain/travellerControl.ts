import type { Refusal } from '../notify/notifier.js';
import type { StateFile } from '../store/stateFile.js';
import { deleteOverEs2, expire, install, installOverEs2, use } from './network.js';
import type { SimEsim, SupplierNotification } from './state.js';

/** Sends one notification (whichever channel its type belongs to); undefined once the platform accepted it. */
export interface NotificationSender {
  send(notification: SupplierNotification): Promise<Refusal | undefined>;
  /** True when the SM-DP+ side reports over ES2+ (the platform's ES2+ listener is configured). */
  readonly es2: boolean;
}

/** What the control API asks the simulated network to do (contract §13). */
export type ControlAction = { kind: 'install'; fail: boolean } | { kind: 'delete' } | { kind: 'usage'; addMb: number } | { kind: 'expire' };

export type ControlAnswer = { kind: 'done'; esim: SimEsim } | { kind: 'not_found' } | { kind: 'refused'; refusal: Refusal };

function happen(esim: SimEsim, action: ControlAction, now: Date, es2: boolean): SupplierNotification[] {
  switch (action.kind) {
    case 'install':
      // The SM-DP+ reports the installation over ES2+; without an ES2+ listener configured, the network's first attach does.
      return es2 ? installOverEs2(esim, now, action.fail) : action.fail ? [] : install(esim, now);
    case 'delete':
      return es2 ? deleteOverEs2(esim, now) : [];
    case 'usage':
      return use(esim, action.addMb, now);
    case 'expire':
      return expire(esim, now);
  }
}

/**
 * Plays the traveller's side and reports it to the platform. The guarantee:
 * the platform receives every notification, in the order things happened,
 * each under one id however often it is sent. Actions run one at a time;
 * each one's change and its notifications are saved together (the outbox in
 * the state file) before any is sent, and the answer comes only once the
 * platform accepted all of them. If it refuses, the action stays done and
 * its notifications stay queued: the next action sends them first, and
 * refuses to act (changing nothing) while they are still refused, so a
 * later notification can never overtake an earlier one — across restarts too.
 */
export class TravellerControl {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: StateFile,
    private readonly notifier: NotificationSender,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  act(iccid: string, action: ControlAction): Promise<ControlAnswer> {
    const turn = this.tail.then(() => this.actNow(iccid, action));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async actNow(iccid: string, action: ControlAction): Promise<ControlAnswer> {
    const { state } = this.store;
    const esim = state.byIccid(iccid);
    if (!esim) return { kind: 'not_found' };
    const earlier = await this.sendWaiting();
    if (earlier) return { kind: 'refused', refusal: earlier };
    // Every change the network functions make comes with a notification, so none means nothing changed.
    state.enqueue(happen(esim, action, this.clock(), this.notifier.es2));
    await this.store.persist();
    const refusal = await this.sendWaiting();
    return refusal ? { kind: 'refused', refusal } : { kind: 'done', esim };
  }

  /** Sends the outbox oldest first, stopping at the first refusal. */
  private async sendWaiting(): Promise<Refusal | undefined> {
    const { state } = this.store;
    let refusal: Refusal | undefined;
    while (state.outbox[0] && !refusal) {
      refusal = await this.notifier.send(state.outbox[0]);
      if (!refusal) state.delivered();
    }
    await this.store.persist();
    return refusal;
  }
}
