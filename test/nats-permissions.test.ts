// Protects #17's per-service NATS permissions (scripts/deploy/natsPermissions.ts): derived from the
// event contracts and the services' own declarations, consistent with them, and shown verbatim in
// docs/deployment.md so the documented configuration cannot drift from the code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { events, streams } from '@esim/events';
import { describe, expect, it } from 'vitest';
import { natsAuthorization, natsUsage, permissionsOf } from '../scripts/deploy/natsPermissions.js';
import { services } from '../scripts/launcher/services.js';
import { repoRoot } from '../scripts/launcher/supervisor.js';

const withNats = services.filter((entry) => entry.needs.includes('nats'));
const permissions = new Map(withNats.map((entry) => [entry.name, permissionsOf(entry)!]));

describe('NATS permissions per service', () => {
  it('give every event a publisher whose user may publish its subject, and every consumer one to read from', () => {
    for (const [type, { stream }] of Object.entries(events)) {
      const subject = `esim.${streams[stream].subjects[0]}`;
      const publishers = withNats.filter((entry) => natsUsage(entry).publishes.includes(stream));
      expect(publishers.length, `${type}: a service publishes ${stream}`).toBeGreaterThan(0);
      for (const entry of publishers) expect(permissions.get(entry.name)!.publish, `${entry.name} publishes ${type}`).toContain(subject);
    }
    for (const entry of withNats) {
      for (const { durable, type } of natsUsage(entry).durables) {
        expect(Object.keys(events), `${entry.name}'s ${durable} consumes a contract event`).toContain(type);
        const stream = `ESIM_${events[type as keyof typeof events].stream}`;
        expect(permissions.get(entry.name)!.publish).toContain(`$JS.API.CONSUMER.MSG.NEXT.${stream}.esim_${durable}`);
      }
    }
  });

  it('let no service publish a stream it does not declare, nor touch another service\'s consumers', () => {
    for (const entry of withNats) {
      const own = natsUsage(entry);
      const { publish } = permissions.get(entry.name)!;
      for (const subject of publish.filter((item) => item.startsWith('esim.'))) {
        expect(own.publishes.some((stream) => streams[stream].subjects.some((s) => `esim.${s}` === subject)), `${entry.name} → ${subject}`).toBe(true);
      }
      for (const rule of publish.filter((item) => item.startsWith('$JS.API.CONSUMER') || item.startsWith('$JS.ACK'))) {
        expect(own.durables.some(({ durable }) => rule.includes(`.esim_${durable}`)), `${entry.name} → ${rule}`).toBe(true);
      }
    }
    // The money path: only the orders service publishes order events, only the wallet wallet events.
    expect(permissions.get('gateway')!.publish.filter((item) => item.startsWith('esim.'))).toEqual([]);
    expect(withNats.filter((entry) => permissions.get(entry.name)!.publish.includes('esim.wallet.>')).map((entry) => entry.name)).toEqual(['wallet']);
  });

  it('is shown verbatim in docs/deployment.md', () => {
    const docs = readFileSync(join(repoRoot, 'docs', 'deployment.md'), 'utf8');
    expect(docs).toContain(`\`\`\`\n${natsAuthorization()}\n\`\`\``);
  });
});
