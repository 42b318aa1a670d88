/**
 * Per-service NATS permissions for production, derived from the event
 * contracts (packages/events/src/contracts.ts: event type → stream →
 * subjects) and from what each service's code declares: the streams it
 * `publishes` (its service definition) and the events it consumes or
 * subscribes to (the event types its sources name). The result is a
 * nats-server `authorization` block, one user per service, which
 * docs/deployment.md shows verbatim (test/nats-permissions.test.ts keeps the
 * two equal). Print it: `node --import tsx scripts/deploy/natsPermissions.ts [namespace]`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { events, isLaned, laneDurable, lanes, laneSubject, streams, type EventType, type StreamName } from '@esim/events';
import { services, type ServiceEntry } from '../launcher/services.js';
import { repoRoot } from '../launcher/supervisor.js';

export interface ServicePermissions {
  service: string;
  publish: string[];
  subscribe: string[];
}

function sources(dir: string): string {
  try {
    return readdirSync(dir)
      .map((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? readFileSync(path, 'utf8') : '';
      })
      .join('\n');
  } catch {
    return '';
  }
}

/** What a service's code says it does with NATS. */
export function natsUsage(entry: ServiceEntry) {
  const code = sources(join(repoRoot, 'services', entry.name, 'src'));
  const published = /publishes:\s*\[([^\]]*)\]/.exec(code)?.[1] ?? '';
  const publishes = [...published.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1] as StreamName);
  const durables = [...code.matchAll(/durable:\s*'([a-z_]+)',\s*type:\s*'([a-z._]+)'/g)].map((m) => ({ durable: m[1]!, type: m[2]! }));
  const referenced = Object.keys(events).filter((type) => code.includes(`'${type}'`));
  const subscribed = [...code.matchAll(/\.subscribe\(ns\.subject\('([a-z._]+)'\)|onEveryReplica\(\{[^}]*\btype: '([a-z._]+)'/g)].map((m) => (m[1] ?? m[2])!);
  // The operator's dead-letter routes (the gateway's admin API): reading and redriving every consumer's letters.
  const redrives = /\bredriveDeadLetters\(/.test(code);
  return { publishes, durables, referenced, subscribed, redrives };
}

/** The user `entry` connects as: publish and subscribe allow-lists under `ns` (PLATFORM_NAMESPACE). */
export function permissionsOf(entry: ServiceEntry, ns = 'esim'): ServicePermissions | undefined {
  if (!entry.needs.includes('nats')) return undefined;
  const { publishes, durables, referenced, subscribed, redrives } = natsUsage(entry);
  const streamName = (stream: string) => `${ns.toUpperCase()}_${stream}`;
  const publish = new Set<string>(['$JS.API.INFO']);
  const subscribe = new Set<string>(['_INBOX.>']);
  for (const stream of publishes) {
    for (const subject of streams[stream].subjects) publish.add(`${ns}.${subject}`);
  }
  // A service creates or updates the streams it publishes to and the ones it consumes from (ensureStreams).
  const touched = new Set<string>([...publishes, ...durables.map(({ type }) => events[type as keyof typeof events].stream)]);
  for (const stream of touched) for (const verb of ['INFO', 'CREATE', 'UPDATE']) publish.add(`$JS.API.STREAM.${verb}.${streamName(stream)}`);
  // A saga event's consumer has a durable per lane (@esim/events lanes.ts): `<durable>` and `<durable>_test`.
  for (const { durable: declared, type } of durables) {
    const stream = streamName(events[type as EventType].stream);
    for (const lane of isLaned(type as EventType) ? lanes : (['live'] as const)) {
      const durable = laneDurable(declared, lane);
      const name = `${ns}_${durable}`;
      publish.add(`$JS.API.CONSUMER.*.${stream}.${name}`);
      publish.add(`$JS.API.CONSUMER.CREATE.${stream}.${name}.>`);
      publish.add(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`);
      publish.add(`$JS.ACK.${stream}.${name}.>`);
      // What a consumer gives up on it copies to the dead-letter stream (creating it on first start), under its own name only.
      publish.add(`${ns}.deadletter.${durable}`);
    }
  }
  const deadLetters = streamName('DEAD_LETTERS');
  if (durables.length > 0 || redrives) for (const verb of ['INFO', 'CREATE']) publish.add(`$JS.API.STREAM.${verb}.${deadLetters}`);
  if (redrives) for (const rule of redrivePermissions(ns, publishes)) publish.add(rule);
  // Core subscriptions (cache refreshes, credential evictions): events it subscribes to by name, and
  // events of streams it does not publish that its code names (a subscription through a variable).
  for (const type of subscribed) subscribe.add(`${ns}.${type}`);
  for (const type of referenced) {
    if (!publishes.includes(events[type as keyof typeof events].stream)) subscribe.add(`${ns}.${type}`);
  }
  return { service: entry.name, publish: [...publish].sort(), subscribe: [...subscribe].sort() };
}

/**
 * Listing reads the dead-letter stream by direct gets; a redrive reads it
 * with an ordered consumer, publishes each letter again to its original
 * subject and deletes it. Those subjects are the events some durable
 * consumes, each by its exact name (never a stream's wildcard). Telling a
 * known consumer asks each stream of the namespace for the durable's info.
 */
function redrivePermissions(ns: string, publishes: StreamName[]): string[] {
  const streamName = (stream: string) => `${ns.toUpperCase()}_${stream}`;
  const deadLetters = streamName('DEAD_LETTERS');
  const consumed = new Set(services.filter((entry) => entry.needs.includes('nats')).flatMap((entry) => natsUsage(entry).durables.map(({ type }) => type)));
  return [
    `$JS.API.STREAM.MSG.GET.${deadLetters}`,
    `$JS.API.STREAM.MSG.DELETE.${deadLetters}`,
    `$JS.API.CONSUMER.CREATE.${deadLetters}.>`,
    `$JS.API.CONSUMER.INFO.${deadLetters}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${deadLetters}.*`,
    `$JS.API.CONSUMER.DELETE.${deadLetters}.*`,
    ...Object.keys(streams).map((stream) => `$JS.API.CONSUMER.INFO.${streamName(stream)}.*`),
    ...[...consumed]
      .filter((type) => !publishes.includes(events[type as EventType].stream))
      .flatMap((type) => [...new Set(lanes.map((lane) => laneSubject(type as EventType, lane)))])
      .map((subject) => `${ns}.${subject}`),
  ];
}

/** The nats-server `authorization` block: one user per service, passwords from the environment of the NATS server. */
export function natsAuthorization(ns = 'esim'): string {
  const users = services.flatMap((entry) => {
    const permissions = permissionsOf(entry, ns);
    if (!permissions) return [];
    const list = (items: string[]) => items.map((item) => `"${item}"`).join(', ');
    const variable = `$${entry.name.toUpperCase().replaceAll('-', '_')}_NATS_PASSWORD`;
    return [
      `    {`,
      `      user: "${entry.name}", password: ${variable}`,
      `      permissions: {`,
      `        publish: { allow: [${list(permissions.publish)}] }`,
      `        subscribe: { allow: [${list(permissions.subscribe)}] }`,
      `      }`,
      `    }`,
    ];
  });
  return ['authorization {', '  users: [', ...users, '  ]', '}'].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  process.stdout.write(`${natsAuthorization(process.argv[2] ?? 'esim')}\n`);
}
