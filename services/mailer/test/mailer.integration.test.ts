// Protects the mailer's delivery promise end to end: a mail request sent through the outbox reaches a real SMTP server once, even when the worker is killed mid-send, its secrets arrive opened, and nothing else ever holds them.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataKey, parseDataKey, seal } from '@esim/crypto';
import type { EventData } from '@esim/events';
import { startMailerProcess, type MailerProcess } from './support/mailerProcess.js';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.js';
import { createTestPlatform, type TestPlatform } from './support/testPlatform.js';
import { until } from '@esim/testing';

const dataKeyBase64 = generateDataKey();
const dataKey = parseDataKey(dataKeyBase64);
const mailCount = 20;
const stallOnArrival = 8;

let platform: TestPlatform;
let sink: SmtpSink;
const children: MailerProcess[] = [];
const tempDirs: string[] = [];

/** Each test's mailer process, tracked so afterAll kills whatever a failed test left running. */
async function startMailer(env: Record<string, string>): Promise<MailerProcess> {
  const mailer = await startMailerProcess({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: platform.databaseUrl,
    NATS_URL: platform.natsUrl,
    PLATFORM_NAMESPACE: platform.namespace,
    DATA_ENCRYPTION_KEY: dataKeyBase64,
    HEALTH_PORT: '0',
    // A killed worker's messages come back after this instead of the production 60 s.
    MAIL_ACK_WAIT_MS: '5000',
    ...env,
  });
  children.push(mailer);
  return mailer;
}

/** Mail request i: every fifth is an approval carrying a fresh key and secret, the others cycle through the rest. */
function mailRequest(i: number): { data: EventData<'mail.requested'>; secrets: string[] } {
  const to = `partner${i}@example.com`;
  const name = `Partner ${i}`;
  const apiKey = `sk_live_${String(i).padStart(12, '0')}_${'K'.repeat(20)}${i}secret${'x'.repeat(10)}`;
  const webhookSecret = `whsec_${Buffer.from(`webhook-secret-${i}-`.padEnd(32, '.')).toString('base64')}`;
  switch (i % 5) {
    case 0:
      return {
        data: { to, template: 'partner_approved', values: { name, tier: 'premium' }, sealedValues: { apiKey: seal(dataKey, apiKey), webhookSecret: seal(dataKey, webhookSecret) } },
        secrets: [apiKey, webhookSecret],
      };
    case 1: {
      const verifyToken = `verify${String(i).padStart(6, '0')}${'T'.repeat(30)}`;
      return { data: { to, template: 'application_received', values: { name }, sealedValues: { verifyToken: seal(dataKey, verifyToken) } }, secrets: [verifyToken] };
    }
    case 2:
      return { data: { to, template: 'partner_rejected', values: { name, reason: 'Incomplete company details' }, sealedValues: {} }, secrets: [] };
    case 3:
      return { data: { to, template: 'api_key_issued', values: { name, scopes: 'catalog:read,orders:read' }, sealedValues: { apiKey: seal(dataKey, apiKey) } }, secrets: [apiKey] };
    default:
      return { data: { to, template: 'webhook_secret_rotated', values: { name }, sealedValues: { webhookSecret: seal(dataKey, webhookSecret) } }, secrets: [webhookSecret] };
  }
}

async function sentMessageRows(): Promise<Record<string, unknown>[]> {
  return (await platform.pool.query('SELECT * FROM mailer.sent_messages ORDER BY sent_at')).rows;
}

beforeAll(async () => {
  platform = await createTestPlatform();
  sink = await startSmtpSink({ stallOnArrival });
});

afterAll(async () => {
  await Promise.all(children.map((child) => child.stop('SIGKILL')));
  await sink?.close();
  await platform?.destroy();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('mailer worker', () => {
  it('when the mailer is killed while the SMTP server holds a mail, then after a restart each of the 20 mails is accepted exactly once', { timeout: 90_000 }, async () => {
    const first = await startMailer({ SMTP_URL: sink.url });
    const requests = Array.from({ length: mailCount }, (_, i) => mailRequest(i));
    const eventIds: string[] = [];
    for (const request of requests) eventIds.push(await platform.requestMail(request.data));

    const stalledId = await Promise.race([sink.stalled, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the sink never stalled')), 20_000))]);
    await first.stop('SIGKILL');
    expect(stalledId).toBe(`<${eventIds[stallOnArrival - 1]}@esim.local>`);
    expect(sink.accepted).toHaveLength(stallOnArrival - 1);

    // The stalled message was never answered, so nothing of it was accepted: the restarted worker must send it, once.
    const second = await startMailer({ SMTP_URL: sink.url });
    await until(() => sink.accepted.length >= mailCount, `${mailCount} accepted mails`, 45_000);
    await until(async () => (await sentMessageRows()).length === mailCount, 'sent_messages rows', 10_000);
    await until(async () => (await platform.mailStreamMessages()) === 0, 'the acked requests to leave the work queue', 10_000);
    // The same event again under a new Nats-Msg-Id (past the stream's dedupe window): the consumer's record must skip it.
    await platform.republish(eventIds[0] ?? '');
    await until(async () => (await platform.mailStreamMessages()) === 0, 'the republished request to be acked', 10_000);
    await new Promise((r) => setTimeout(r, 1_000)); // Room for a duplicate to show up, were there one.

    const acceptedIds = sink.accepted.map((mail) => mail.messageId);
    expect(acceptedIds).toHaveLength(mailCount);
    expect(new Set(acceptedIds)).toEqual(new Set(eventIds.map((id) => `<${id}@esim.local>`)));

    for (const [i, request] of requests.entries()) {
      const mail = sink.accepted.find((accepted) => accepted.messageId === `<${eventIds[i]}@esim.local>`);
      expect(mail?.to).toBe(request.data.to);
      if (request.data.template === 'partner_approved') {
        const lines = mail?.text.split('\n') ?? [];
        expect(mail?.subject).toBe('Your partner account is approved');
        expect(lines).toEqual(expect.arrayContaining([`API key: ${request.secrets[0]}`, `Webhook signing secret: ${request.secrets[1]}`, 'Tier: premium']));
      }
    }

    // Secrets and addresses live only in the mails: not in the table, not in either process's logs.
    const rows = JSON.stringify(await sentMessageRows());
    const logs = first.output() + second.output();
    for (const { data, secrets } of requests) {
      for (const secret of secrets) {
        expect(rows).not.toContain(secret);
        expect(logs).not.toContain(secret);
      }
      expect(rows).not.toContain(data.to);
      expect(logs).not.toContain(data.to);
    }
    expect(await sentMessageRows()).toContainEqual(expect.objectContaining({ recipient_masked: 'p***@example.com', transport: 'smtp' }));

    expect(await second.stop('SIGTERM')).toBe(0);
  });

  it('when SMTP is unreachable, then the worker stays ready and sends the mail once the server is back', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const mailer = await startMailer({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    const eventId = await platform.requestMail(mailRequest(1).data);
    await until(() => /"msg":"event failed; will retry"/.test(mailer.output()), 'a failed send', 15_000);
    expect((await fetch(`http://127.0.0.1:${mailer.healthPort}/readyz`)).status).toBe(200);

    const lateSink = await startSmtpSink({ port });
    try {
      await until(() => lateSink.accepted.length === 1, 'the retried mail', 30_000);
      expect(lateSink.accepted[0]?.messageId).toBe(`<${eventId}@esim.local>`);
    } finally {
      await mailer.stop('SIGTERM');
      await lateSink.close();
    }
  });

  it('when SMTP_URL is unset, then the mail is written as an .eml file under MAIL_DIR and its subject logged', { timeout: 60_000 }, async () => {
    const mailDir = mkdtempSync(join(tmpdir(), 'mailer-test-'));
    tempDirs.push(mailDir);
    const mailer = await startMailer({ MAIL_DIR: mailDir });
    const request = mailRequest(0);
    const eventId = await platform.requestMail(request.data);

    await until(() => readdirSync(mailDir).some((file) => file.endsWith(`-${eventId}.eml`)), 'the .eml file', 15_000);
    const file = join(mailDir, readdirSync(mailDir).find((name) => name.endsWith('.eml')) ?? '');
    const raw = readFileSync(file, 'utf8');
    expect(raw).toContain(`Message-ID: <${eventId}@esim.local>`);
    expect(raw).toContain('Subject: Your partner account is approved');
    expect(raw.split('\n')).toContain(`API key: ${request.secrets[0]}`);
    // The file holds secrets in clear, so only its owner may read it.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await until(() => mailer.output().includes('"subject":"Your partner account is approved"'), 'the logged subject', 5_000);
    expect(mailer.output()).not.toContain(request.secrets[0]);
    expect(await mailer.stop('SIGTERM')).toBe(0);
  });
});

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
