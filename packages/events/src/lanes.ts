import { livemodeOf } from '@esim/ids';
import type { EventData, EventType } from './contracts.js';

/**
 * Test mode's own lane through the saga (contract §14: "nothing a test key
 * sends can … slow live data"). An event of a test account's order travels
 * on its type's subject with `.test` appended (`orders.order.paid.test`) and
 * is consumed by a durable of its own (`provisioning_order_paid_test`), so a
 * deployment can give test mode processes of its own (EVENT_LANES=test, a
 * CPU limit or a lower priority) while live processes (EVENT_LANES=live)
 * never see a test event, and the other way round. A process with both lanes
 * (the default) consumes both subjects, each through its own durable.
 *
 * Only the saga's per-order events are laned: the ones below, whose account
 * id names the mode. Everything else (mail, audit, cache invalidations heard
 * by every replica, catalog changes, a rare test-data deletion) keeps one
 * subject and is consumed by the live lane.
 */
export const lanes = ['live', 'test'] as const;
export type Lane = (typeof lanes)[number];

/** The event types that travel per lane, and the data field naming the account whose mode picks it. */
const lanedBy: Partial<Record<EventType, 'partnerId'>> = {
  'orders.order.paid': 'partnerId',
  'orders.order.provisioned': 'partnerId',
  'orders.order.provisioning_failed': 'partnerId',
  'provisioning.succeeded': 'partnerId',
  'provisioning.failed': 'partnerId',
  'wallet.order.refunded': 'partnerId',
  'partner.notification': 'partnerId',
};

/** The lanes named (each once, in `lanes` order); none named: both. What every lane-aware part serves. */
export const servedLanes = (named: readonly Lane[] = lanes): Lane[] => lanes.filter((lane) => named.includes(lane));

export const isLaned = (type: EventType): boolean => lanedBy[type] !== undefined;

/** The lane of one event: test when its account is a test account; live otherwise, and for unlaned types. */
export function laneOf<T extends EventType>(type: T, data: EventData<T>): Lane {
  const field = lanedBy[type];
  if (!field) return 'live';
  const account = (data as Record<string, unknown>)[field];
  return typeof account === 'string' && !livemodeOf(account) ? 'test' : 'live';
}

/** The subject (without the namespace) an event of `type` travels on in `lane`. */
export const laneSubject = (type: EventType, lane: Lane): string => (lane === 'test' && isLaned(type) ? `${type}.test` : type);

/** The durable (without the namespace) that consumes `lane`'s events for a consumer declared as `durable`. */
export const laneDurable = (durable: string, lane: Lane): string => (lane === 'test' ? `${durable}_test` : durable);

/**
 * The lanes a process consumes `type` in: a laned type in each lane the
 * process serves; any other type only by a process that serves live (a
 * test-only replica leaves mail, audit and the rest to the live ones).
 */
export function consumedLanes(type: EventType, served: readonly Lane[]): Lane[] {
  if (isLaned(type)) return lanes.filter((lane) => served.includes(lane));
  return served.includes('live') ? ['live'] : [];
}

/** Parses EVENT_LANES (`live,test`, `live`, `test`). */
export function parseLanes(value: string): Lane[] {
  const named = value.split(',').map((part) => part.trim()).filter(Boolean);
  const unknown = named.filter((part) => !(lanes as readonly string[]).includes(part));
  if (unknown.length > 0 || named.length === 0) throw new Error(`EVENT_LANES must list live and/or test, comma-separated (got "${value}")`);
  return lanes.filter((lane) => named.includes(lane));
}
