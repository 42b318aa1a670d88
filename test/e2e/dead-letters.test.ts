// Protects the operator's dead letters through the admin API (#14): what a consumer of the running platform gave up on is listed
// without its body, a redrive hands it back to its consumer and leaves the stream, and the routes keep §3/§10's rules (token, validation, audit).
import { randomBytes } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { deadLetterHeaders, namespace } from '@esim/events';
import { newId } from '@esim/ids';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../packages/admin-cli/src/main.js';
import { admin, call, expectInvalidField, expectProblem, platform, until, type Answer } from './support/client.js';

const ns = namespace(platform.namespace);
const consumer = 'partners_audit';
const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connect({ servers: platform.natsUrl });
});
afterAll(async () => {
  await nc?.close();
});

interface Letter {
  sequence: number;
  eventId: string | null;
  originalSequence: number | null;
  [field: string]: unknown;
}

const letters = async (query = `?consumer=${consumer}&limit=100`): Promise<Answer<{ data: Letter[]; pagination: Record<string, number> }>> =>
  admin(`/dead-letters${query}`);

async function auditEntry(action: string, target: string) {
  return until(async () => {
    const log = await admin('/audit?limit=100');
    return (log.body.data as Array<{ action: string; target: string }>).find((e) => e.action === action && e.target === target);
  }, `the ${action} audit entry for ${target}`);
}

describe('dead letters', () => {
  it('when partners_audit gave up on a valid event, then the operator lists it without its body, redrives it, it leaves the stream and the audit log receives it', async () => {
    const before = (await letters()).body.data;
    const tag = randomBytes(5).toString('hex');
    // The body carries something no listing may show (events carry e-mails, activation codes, sealed secrets).
    const secret = `whsec_${randomBytes(16).toString('hex')}`;
    const event = {
      id: newId('evt'),
      type: 'audit.recorded',
      occurredAt: new Date().toISOString(),
      data: { action: 'e2e.dead_letter', target: `dl-${tag}`, operator: '', requestId: `req_${tag}`, details: { note: secret }, occurredAt: new Date().toISOString() },
    };
    // The copy partners_audit leaves when it gives up after maxDeliver (packages/events deadLetter: headers and body unchanged).
    const h = natsHeaders();
    h.set(deadLetterHeaders.subject, ns.subject('audit.recorded'));
    h.set(deadLetterHeaders.consumer, consumer);
    h.set(deadLetterHeaders.reason, 'max_deliver: connection terminated unexpectedly');
    h.set(deadLetterHeaders.attempts, '20');
    h.set(deadLetterHeaders.streamSequence, '1234');
    const stored = await jetstream(nc).publish(ns.subject(`deadletter.${consumer}`), JSON.stringify(event), { headers: h, msgID: `e2e:${event.id}` });

    const expected = {
      sequence: stored.seq,
      consumer,
      subject: ns.subject('audit.recorded'),
      reason: 'max_deliver: connection terminated unexpectedly',
      attempts: 20,
      originalSequence: 1234,
      eventId: event.id,
      eventType: 'audit.recorded',
      deadLetteredAt: expect.stringMatching(timestamp),
    };
    const listed = await letters();
    expect(listed.status, listed.text).toBe(200);
    expect(listed.headers['content-type']).toMatch(/^application\/json/);
    expect(listed.body).toEqual({ data: [...before, expected], pagination: { page: 1, limit: 100, total: before.length + 1, totalPages: 1 } });
    expect(listed.text).not.toContain(secret);
    // Unfiltered, it is there too (oldest first: after every letter stored before it).
    const all = await letters('?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.data.filter((l) => l.eventId === event.id)).toEqual([expected]);
    expect(all.text).not.toContain(secret);

    const redrive = await admin('/dead-letters/redrive', { body: { consumer }, headers: { 'x-operator': 'ops-dana' } });
    expect(redrive.status, redrive.text).toBe(200);
    expect(redrive.body).toEqual({ redriven: before.length + 1 });

    // Removed once stored on its subject again; the consumer applies it (the audit entry it carries appears).
    expect((await letters()).body.data.map((l) => l.sequence)).not.toContain(stored.seq);
    const received = await auditEntry('e2e.dead_letter', `dl-${tag}`);
    expect(received).toMatchObject({ requestId: `req_${tag}`, details: { note: secret } });
    const audited = await auditEntry('dead_letters.redriven', consumer);
    expect(audited).toMatchObject({ operator: 'admin-token', requestId: redrive.headers['x-request-id'], details: { redriven: before.length + 1 } });
  });

  it('when an event partners_audit cannot decode arrives, then the platform dead-letters it, and a redrive hands it back to the consumer, which gives it up again', async () => {
    const event = { id: newId('evt'), type: 'audit.recorded', occurredAt: new Date().toISOString(), data: { target: 'no action field' } };
    const published = await jetstream(nc).publish(ns.subject('audit.recorded'), JSON.stringify(event), { msgID: event.id });
    const find = async () => (await letters()).body.data.filter((l) => l.eventId === event.id);
    const [first] = await until(async () => ((await find()).length > 0 ? find() : undefined), 'the dead letter of the undecodable event');
    expect(first).toEqual({
      sequence: expect.any(Number),
      consumer,
      subject: ns.subject('audit.recorded'),
      reason: expect.stringMatching(/^undecodable: /),
      attempts: 1,
      originalSequence: published.seq,
      eventId: event.id,
      eventType: 'audit.recorded',
      deadLetteredAt: expect.stringMatching(timestamp),
    });

    // Exactly the letters waiting: the copy the consumer gives up on again during the redrive is not redriven in a loop.
    const waiting = (await letters()).body.pagination.total;
    const redrive = await admin('/dead-letters/redrive', { body: { consumer } });
    expect(redrive.status, redrive.text).toBe(200);
    expect(redrive.body).toEqual({ redriven: waiting });
    // The consumer received the redriven copy (a new message of its stream) and dead-lettered it again.
    const again = await until(async () => {
      const found = await find();
      return found.length === 1 && found[0]!.sequence !== first!.sequence ? found[0] : undefined;
    }, 'the redriven copy given up again');
    expect(again.sequence).toBeGreaterThan(first!.sequence);
    expect(again.originalSequence).toBeGreaterThan(published.seq);
    expect(again).toMatchObject({ attempts: 1, eventId: event.id, reason: expect.stringMatching(/^undecodable: /) });
  });
});

describe('dead-letter routes refuse', () => {
  it('when no admin token is sent, then both routes answer 401 UNAUTHENTICATED; a wrong one 401 INVALID_TOKEN', async () => {
    expectProblem(await call(platform.adminUrl, '/admin/v1/dead-letters'), 401, 'UNAUTHENTICATED');
    expectProblem(await call(platform.adminUrl, '/admin/v1/dead-letters/redrive', { body: { consumer } }), 401, 'UNAUTHENTICATED');
    const wrong = { headers: { authorization: 'Bearer not-the-token' } };
    expectProblem(await call(platform.adminUrl, '/admin/v1/dead-letters/redrive', { body: { consumer }, ...wrong }), 401, 'INVALID_TOKEN');
  });

  it('when the body or query breaks a rule, then 400 VALIDATION_ERROR names the field', async () => {
    expectInvalidField(await admin('/dead-letters/redrive', { body: {} }), 'consumer');
    expectInvalidField(await admin('/dead-letters/redrive', { body: { consumer: 'Partners Audit!' } }), 'consumer');
    expectInvalidField(await admin('/dead-letters/redrive', { body: { consumer: 42 } }), 'consumer');
    expectInvalidField(await admin('/dead-letters/redrive', { body: { consumer, limit: 5 } }), 'limit');
    expectInvalidField(await admin('/dead-letters?consumer=NOT_A_NAME'), 'consumer');
    expectInvalidField(await admin('/dead-letters?limit=0'), 'limit');
    expectInvalidField(await admin('/dead-letters?page=abc'), 'page');
    expectInvalidField(await admin('/dead-letters?status=failed'), 'status');
    expectProblem(await admin('/dead-letters/redrive', { rawBody: '{"consumer":', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
  });

  it('when the consumer is unknown to the platform, then the redrive answers 404 NOT_FOUND and an empty page lists nothing', async () => {
    const unknown = await admin('/dead-letters/redrive', { body: { consumer: 'no_such_consumer' } });
    expectProblem(unknown, 404, 'NOT_FOUND');
    expect(unknown.body.detail).toBe('No consumer no_such_consumer on this platform.');
    const empty = await letters('?consumer=no_such_consumer');
    expect({ status: empty.status, body: empty.body }).toEqual({ status: 200, body: { data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } } });
  });
});

describe('esim-admin dead-letters', () => {
  /** Runs the CLI in this process with --json and the platform's URL and token, capturing what it prints. */
  async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const write = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
    process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
    try {
      const code = await main(['--json', '--url', platform.adminUrl, '--token', platform.adminToken, ...argv]);
      return { code, stdout, stderr };
    } finally {
      process.stdout.write = write.out;
      process.stderr.write = write.err;
      process.exitCode = undefined;
    }
  }

  it('when an operator lists and redrives from the shell, then the CLI prints the API’s answers and exits 0, or 2 for an unknown consumer', async () => {
    const listed = await cli('dead-letters', 'list', '--consumer', 'no_such_consumer', '--limit', '5');
    expect({ code: listed.code, body: JSON.parse(listed.stdout) }).toEqual({ code: 0, body: { data: [], pagination: { page: 1, limit: 5, total: 0, totalPages: 0 } } });
    const redriven = await cli('dead-letters', 'redrive', consumer);
    expect({ code: redriven.code, body: JSON.parse(redriven.stdout) }).toEqual({ code: 0, body: { redriven: expect.any(Number) } });
    const unknown = await cli('dead-letters', 'redrive', 'no_such_consumer');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ status: 404, code: 'NOT_FOUND', detail: 'No consumer no_such_consumer on this platform.' });
    expect(unknown.stderr).toMatch(/^esim-admin: /);
  });
});
