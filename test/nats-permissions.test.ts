// Protects #17's per-service NATS permissions (scripts/deploy/natsPermissions.ts): derived from the
// event contracts and the services' own declarations, consistent with them, and shown verbatim in
// docs/deployment.md so the documented configuration cannot drift from the code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { events, isLaned, laneSubject, streams, type EventType } from '@esim/events';
import { describe, expect, it } from 'vitest';
import { natsAuthorization, natsUsage, permissionsOf } from '../scripts/deploy/natsPermissions.js';
import { services } from '../scripts/launcher/services.js';
import { repoRoot } from '../scripts/launcher/supervisor.js';

const withNats = services.filter((entry) => entry.needs.includes('nats'));
const permissions = new Map(withNats.map((entry) => [entry.name, permissionsOf(entry)!]));
const consumedTypes = [...new Set(withNats.flatMap((entry) => natsUsage(entry).durables.map(({ type }) => type)))].sort();
// The subjects those consumers read: a saga event's in both lanes (`….test` for a test account's, @esim/events lanes.ts).
const consumedSubjects = consumedTypes.flatMap((type) => (isLaned(type as EventType) ? [type, laneSubject(type as EventType, 'test')] : [type]));

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
        // The test lane's durable of a saga event: without it a test-mode replica could not consume (§14).
        if (isLaned(type as EventType)) expect(permissions.get(entry.name)!.publish).toContain(`$JS.API.CONSUMER.MSG.NEXT.${stream}.esim_${durable}_test`);
        else expect(permissions.get(entry.name)!.publish).not.toContain(`$JS.API.CONSUMER.MSG.NEXT.${stream}.esim_${durable}_test`);
      }
    }
  });

  it('let no service publish a stream it does not declare, nor touch another service\'s consumers', () => {
    for (const entry of withNats) {
      const own = natsUsage(entry);
      const { publish } = permissions.get(entry.name)!;
      // Besides its streams: its own durables' dead letters, and for the service that redrives, the events some durable consumes.
      const redriven = own.redrives ? consumedSubjects.map((subject) => `esim.${subject}`) : [];
      for (const subject of publish.filter((item) => item.startsWith('esim.'))) {
        const declared = own.publishes.some((stream) => streams[stream].subjects.some((s) => `esim.${s}` === subject));
        const deadLetters = own.durables.some(({ durable }) => subject === `esim.deadletter.${durable}` || subject === `esim.deadletter.${durable}_test`);
        expect(declared || deadLetters || redriven.includes(subject), `${entry.name} → ${subject}`).toBe(true);
      }
      for (const rule of publish.filter((item) => item.startsWith('$JS.API.CONSUMER') || item.startsWith('$JS.ACK'))) {
        // The redriving service reads any consumer's info (is it known?) and runs its own readers on the dead letters.
        const redriveRule = own.redrives && (/^\$JS\.API\.CONSUMER\.INFO\.ESIM_[A-Z_]+\.\*$/.test(rule) || rule.includes('.ESIM_DEAD_LETTERS.'));
        expect(own.durables.some(({ durable }) => rule.includes(`.esim_${durable}`)) || redriveRule, `${entry.name} → ${rule}`).toBe(true);
      }
    }
    // The money path: only the orders service publishes order events, only the wallet wallet events. The gateway
    // publishes its audit entries, and the exact events a durable consumes only to redrive them (docs/decisions.md).
    expect(permissions.get('gateway')!.publish.filter((item) => item.startsWith('esim.') && !item.startsWith('esim.deadletter.'))).toEqual(
      ['esim.audit.>', ...consumedSubjects.filter((subject) => !subject.startsWith('audit.')).map((subject) => `esim.${subject}`)].sort(),
    );
    expect(permissions.get('gateway')!.publish.filter((item) => item.endsWith('.>') && item.startsWith('esim.'))).toEqual(['esim.audit.>']);
    expect(withNats.filter((entry) => permissions.get(entry.name)!.publish.includes('esim.wallet.>')).map((entry) => entry.name)).toEqual(['wallet']);
  });

  it('is shown verbatim in docs/deployment.md', () => {
    const docs = readFileSync(join(repoRoot, 'docs', 'deployment.md'), 'utf8');
    expect(docs).toContain(`\`\`\`\n${natsAuthorization()}\n\`\`\``);
  });
});
