// Protects the five mail texts partners (and the acceptance tests) parse: subjects, the one-per-line secret, tier, reason and scope lines, and the opening of sealed secrets.
import { describe, expect, it } from 'vitest';
import { generateDataKey, parseDataKey, seal } from '@esim/crypto';
import { MissingTemplateValueError, renderMail, type MailRequest } from '../src/domain/templates.js';

const key = parseDataKey(generateDataKey());
const apiKey = 'sk_live_abcdefghij12_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const webhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1d4WoA2C5Lc=';
const platform = 'Acme Partners';
const verifyToken = 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
const urls = { portalUrl: 'https://portal.example.com/portal/', consoleUrl: 'https://console.example.com/console' };

const request = (template: MailRequest['template'], values: Record<string, string>, secrets: Record<string, string> = {}): MailRequest => ({
  to: 'ada@example.com',
  template,
  values: { name: 'Ada Lovelace', ...values },
  sealedValues: Object.fromEntries(Object.entries(secrets).map(([field, plain]) => [field, seal(key, plain)])),
});

const lines = (text: string) => text.split('\n');

describe('mail templates', () => {
  it('when an application is received, then the mail confirms it and greets by name', () => {
    const mail = renderMail(request('application_received', {}, { verifyToken }), key, platform, urls);
    expect(mail.subject).toBe('Your application was received');
    expect(lines(mail.text)).toContain('Hello Ada Lovelace,');
    expect(mail.text).toContain(platform);
    // The link that proves the address stands alone on its line (§4), under the configured portal URL.
    expect(lines(mail.text)).toContain(`https://portal.example.com/portal/verify-email?token=${verifyToken}`);
  });

  it('when a verification is resent, a reset asked or a password changed, then each mail says so, with its own link where it has one', () => {
    const resent = renderMail(request('email_verification', {}, { verifyToken }), key, platform, urls);
    expect(lines(resent.text)).toContain(`https://portal.example.com/portal/verify-email?token=${verifyToken}`);
    const reset = renderMail(request('password_reset', {}, { resetToken: verifyToken }), key, platform, urls);
    expect(reset.subject).toBe('Reset your password');
    expect(lines(reset.text)).toContain(`https://portal.example.com/portal/reset-password?token=${verifyToken}`);
    expect(renderMail(request('password_changed', {}), key, platform, urls).subject).toBe('Your password was changed');
  });

  it('when the webhook URL changes, then the mail names the old and the new URL on their own lines', () => {
    const mail = renderMail(request('webhook_url_changed', { oldUrl: 'https://a.example/h', newUrl: 'https://b.example/h', changedBy: 'an operator' }), key, platform, urls);
    expect(lines(mail.text)).toEqual(expect.arrayContaining(['Old URL: https://a.example/h', 'New URL: https://b.example/h']));
  });

  it('when a webhook endpoint changes (#24), then the mail names the change, the mode, who made it and the endpoint on its own lines, and carries no secret', () => {
    const values = { change: 'secret_rotated', endpointId: 'whe_01jd4x5c8v9w2m3n4p5q6r7s8t', url: 'https://a.example/h', mode: 'test', changedBy: 'an operator' };
    const mail = renderMail(request('webhook_endpoint_changed', values), key, platform, urls);
    expect(mail.subject).toBe('A webhook endpoint’s signing secret was rotated');
    expect(lines(mail.text)).toEqual(expect.arrayContaining(['Endpoint: whe_01jd4x5c8v9w2m3n4p5q6r7s8t', 'URL: https://a.example/h', 'Change: secret_rotated']));
    expect(mail.text).toMatch(/test-mode\s+webhook\s+endpoint/);
    expect(mail.text).toMatch(/by\s+an\s+operator/);
    expect(mail.text).not.toContain('whsec_');
    for (const [change, subject] of [['created', 'A webhook endpoint was added'], ['updated', 'A webhook endpoint was changed'], ['deleted', 'A webhook endpoint was deleted']] as const) {
      expect(renderMail(request('webhook_endpoint_changed', { ...values, change }), key, platform, urls).subject).toBe(subject);
    }
    expect(() => renderMail(request('webhook_endpoint_changed', { ...values, change: 'renamed' }), key, platform, urls)).toThrow(MissingTemplateValueError);
  });

  it('when an operator is invited, then the mail carries the opened token on its own line', () => {
    const token = 'op_abcdefghij12_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const mail = renderMail(request('operator_invited', { role: 'support' }, { operatorToken: token }), key, platform, urls);
    expect(lines(mail.text)).toContain(`Operator token: ${token}`);
    expect(mail.text).toContain('support role');
  });

  it('when a partner is approved, then the mail carries the opened key and secret and the tier, each on its own line', () => {
    const mail = renderMail(request('partner_approved', { tier: 'premium' }, { apiKey, webhookSecret }), key, platform);
    expect(mail.subject).toBe('Your partner account is approved');
    expect(lines(mail.text)).toEqual(expect.arrayContaining([`API key: ${apiKey}`, `Webhook signing secret: ${webhookSecret}`, 'Tier: premium', 'Hello Ada Lovelace,']));
    expect(mail.text).toMatch(/shown\s+only\s+once,\s+in\s+this\s+e-mail,\s+and\s+cannot\s+be\s+recovered/);
    expect(mail.text.split(apiKey)).toHaveLength(2);
    // Lines under 76 columns keep an ASCII body 7bit, so raw messages and .eml files show the secrets verbatim.
    expect(lines(mail.text).every((line) => line.length <= 76)).toBe(true);
  });

  it('when a partner is rejected, then the mail gives the reason', () => {
    const mail = renderMail(request('partner_rejected', { reason: 'Company could not be verified' }), key, platform);
    expect(mail.subject).toBe('Your partner application was declined');
    expect(lines(mail.text)).toContain('Reason: Company could not be verified');
  });

  it('when a key is issued, then the mail carries the opened key and its scopes as a comma list', () => {
    const mail = renderMail(request('api_key_issued', { scopes: 'catalog:read,orders:read' }, { apiKey }), key, platform);
    expect(mail.subject).toBe('A new API key was issued');
    expect(lines(mail.text)).toEqual(expect.arrayContaining([`API key: ${apiKey}`, 'Scopes: catalog:read, orders:read']));
    expect(mail.text).toMatch(/shown\s+only\s+once,\s+in\s+this\s+e-mail,\s+and\s+cannot\s+be\s+recovered/);
  });

  it('when the webhook secret is rotated, then the mail carries the opened new secret', () => {
    const mail = renderMail(request('webhook_secret_rotated', {}, { webhookSecret }), key, platform);
    expect(mail.subject).toBe('Your webhook signing secret was rotated');
    expect(lines(mail.text)).toContain(`Webhook signing secret: ${webhookSecret}`);
    expect(mail.text).toMatch(/shown\s+only\s+once,\s+in\s+this\s+e-mail,\s+and\s+cannot\s+be\s+recovered/);
  });

  it('when a name holds a newline, then it cannot forge a parsed line', () => {
    const mail = renderMail(request('partner_rejected', { name: 'Eve\nAPI key: sk_live_fake', reason: 'spam' }), key, platform);
    expect(lines(mail.text).filter((line) => line.startsWith('API key:'))).toEqual([]);
  });

  it('when a required value or sealed secret is missing, then rendering fails permanently and names the field only', () => {
    expect(() => renderMail(request('partner_approved', {}, { apiKey, webhookSecret }), key, platform)).toThrow(MissingTemplateValueError);
    expect(() => renderMail(request('api_key_issued', { scopes: 'catalog:read' }), key, platform)).toThrow(/sealedValues\.apiKey/);
  });

  it('when a secret was sealed under another key, then rendering fails without the secret in the message', () => {
    const other = request('webhook_secret_rotated', {}, { webhookSecret });
    const error = (() => {
      try {
        renderMail(other, parseDataKey(generateDataKey()), platform);
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(MissingTemplateValueError);
    expect(error?.message).not.toContain(webhookSecret);
  });
});
