import { randomBytes, randomInt } from 'node:crypto';
import { request } from 'node:http';
import { expect, inject } from 'vitest';
import type { ReceivedMail } from './smtpSink.js';

export const platform = inject('platform');

export interface Answer<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  /** Sent as is, for malformed-body tests. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Loopback source address, so per-address limits (register) see distinct clients. */
  localAddress?: string;
}

/** One HTTP call with node:http (no client-side magic), answering status, headers and the parsed body. */
export function call<T = any>(baseUrl: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const url = new URL(path, baseUrl);
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: options.method ?? (payload ? 'POST' : 'GET'), headers, localAddress: options.localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON (docs page, metrics)
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body as T, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const api = <T = any>(path: string, options: CallOptions = {}) => call<T>(platform.publicUrl, `/api/v1${path}`, options);
export const admin = <T = any>(path: string, options: CallOptions = {}) =>
  call<T>(platform.adminUrl, `/admin/v1${path}`, { ...options, headers: { authorization: `Bearer ${platform.adminToken}`, ...options.headers } });
export const control = <T = any>(path: string, method = 'GET') => call<T>(platform.controlUrl, path, { method });

export const withKey = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
export const withToken = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

// The e2e platform allows 100 requests per 10 s per key; paced calls keep each key at 90 per 10.5 s, so a 429 is never the caller's own doing.
const keyUse = new Map<string, number[]>();
async function pace(key: string): Promise<void> {
  for (;;) {
    const now = Date.now();
    const recent = (keyUse.get(key) ?? []).filter((at) => now - at < 10_500);
    if (recent.length < 90) {
      keyUse.set(key, [...recent, now]);
      return;
    }
    await new Promise((r) => setTimeout(r, recent[0]! + 10_500 - now));
  }
}

/** A partner API call with an API key, paced under the key's rate limit. */
export async function asKey<T = any>(key: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  await pace(key);
  return api<T>(path, { ...options, headers: { authorization: `Bearer ${key}`, ...options.headers } });
}

/** Asserts a §3 problem+json answer with this status and code. */
export function expectProblem(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.code }, answer.text).toEqual({ status, code });
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ type: `/problems/${code.toLowerCase().replaceAll('_', '-')}`, requestId: answer.headers['x-request-id'] });
}

/** Asserts 400 VALIDATION_ERROR whose `errors[]` names `path`. */
export function expectInvalidField(answer: Answer, path: string): void {
  expectProblem(answer, 400, 'VALIDATION_ERROR');
  expect((answer.body.errors as Array<{ path: string }>).map((e) => e.path)).toContain(path);
}

/** A loopback address no other test uses, for the per-address register limit. */
export function freshSourceAddress(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}`;
}

export function uniqueEmail(label = 'partner'): string {
  return `${label}-${randomBytes(5).toString('hex')}@example.test`;
}

export async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export async function mailbox(to: string): Promise<ReceivedMail[]> {
  const { body } = await control<ReceivedMail[]>('/mail');
  return body.filter((m) => m.to.includes(to.toLowerCase()));
}

/** Waits for the e-mail to `to` whose subject is `subject`; fails if it does not arrive within the timeout. */
export function waitForMail(to: string, subject: string, options: { count?: number; timeoutMs?: number } = {}): Promise<ReceivedMail[]> {
  const count = options.count ?? 1;
  return until(
    async () => {
      const found = (await mailbox(to)).filter((m) => m.subject === subject);
      return found.length >= count ? found : undefined;
    },
    `${count} × "${subject}" to ${to}`,
    options.timeoutMs ?? 15_000,
  );
}

export const apiKeyPattern = /^API key: (sk_live_[a-z0-9]{12}_[A-Za-z0-9]{32,})$/m;
export const webhookSecretPattern = /^Webhook signing secret: (whsec_[A-Za-z0-9+/]{43}=)$/m;

export interface Onboarded {
  id: string;
  email: string;
  password: string;
  apiKey: string;
  webhookSecret: string;
}

export async function registerPartner(overrides: Record<string, unknown> = {}) {
  const application = { name: 'Test Partner', email: uniqueEmail(), company: 'Test Travel Ltd', password: 'a-long-portal-password', ...overrides };
  const answer = await api('/partner/register', { body: application, localAddress: freshSourceAddress() });
  return { application, answer };
}

/** The link's token in the newest mail to `to` that carries one for `page` (§4), as a partner's mail client shows it. */
export const accountLinkPattern = (page: 'verify-email' | 'reset-password') => new RegExp(`^\\S*/${page}\\?token=([A-Za-z0-9_-]{32,})$`, 'm');

export async function mailedToken(to: string, page: 'verify-email' | 'reset-password', options: { count?: number } = {}): Promise<string> {
  const pattern = accountLinkPattern(page);
  const mails = await until(
    async () => {
      const found = (await mailbox(to)).filter((m) => pattern.test(m.text));
      return found.length >= (options.count ?? 1) ? found : undefined;
    },
    `a ${page} link to ${to}`,
    15_000,
  );
  return pattern.exec(mails.at(-1)!.text)![1]!;
}

/** Follows the "application received" e-mail's link, as the applicant would (§4): the application can then be approved. */
export async function verifyEmailOf(email: string): Promise<void> {
  const token = await mailedToken(email, 'verify-email');
  const verified = await api('/partner/verify-email', { body: { token }, localAddress: freshSourceAddress() });
  if (verified.status !== 200) throw new Error(`verify-email answered ${verified.status}: ${verified.text}`);
}

/** Register, verify the e-mail, approve (at a tier) and read the key and secret out of the approval e-mail, as a partner would. */
export async function onboardPartner(tier?: 'standard' | 'premium' | 'enterprise'): Promise<Onboarded> {
  const { application, answer } = await registerPartner();
  if (answer.status !== 201) throw new Error(`register answered ${answer.status}: ${answer.text}`);
  await verifyEmailOf(application.email);
  const approved = await admin(`/partners/${answer.body.id}/approve`, { body: tier ? { tier } : {} });
  if (approved.status !== 200) throw new Error(`approve answered ${approved.status}: ${approved.text}`);
  const [mail] = await waitForMail(application.email, 'Your partner account is approved');
  return {
    id: answer.body.id,
    email: application.email,
    password: application.password,
    apiKey: apiKeyPattern.exec(mail!.text)![1]!,
    webhookSecret: webhookSecretPattern.exec(mail!.text)![1]!,
  };
}

export async function portalToken(email: string, password: string): Promise<string> {
  const answer = await api('/partner/login', { body: { email, password } });
  if (answer.status !== 200) throw new Error(`login answered ${answer.status}: ${answer.text}`);
  return answer.body.token as string;
}
