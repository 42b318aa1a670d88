import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';

/**
 * The approval e-mail's API key and webhook secret, read as the partner
 * would read them: from the .eml files `npm start` writes under var/mail
 * (MAIL_DIR), or, with DEMO_MAIL_URL, from a mailbox that answers
 * `[{ to, subject, text }]` (the test harness's SMTP sink).
 */
export interface Credentials {
  apiKey: string;
  webhookSecret: string;
}

const keyPattern = /API key: (sk_live_[a-z0-9]+_[A-Za-z0-9]+)/;
const secretPattern = /Webhook signing secret: (whsec_[A-Za-z0-9+/=]+)/;

async function texts(to: string, mailUrl: string | undefined, mailDir: string): Promise<string[]> {
  if (mailUrl) {
    const mails = (await (await fetch(mailUrl)).json()) as { to: string[]; text: string }[];
    return mails.filter((m) => m.to.map((t) => t.toLowerCase()).includes(to)).map((m) => m.text);
  }
  let files: string[] = [];
  try {
    files = readdirSync(mailDir).filter((f) => f.endsWith('.eml'));
  } catch {
    return [];
  }
  // Parsed, not read raw: a mail with a link longer than 76 columns is sent quoted-printable.
  const parsed = await Promise.all(files.map(async (f) => simpleParser(readFileSync(join(mailDir, f)))));
  return parsed
    .filter((mail) => [mail.to ?? []].flat().some((address) => address.value.some((v) => v.address?.toLowerCase() === to)))
    .map((mail) => mail.text ?? '');
}

export async function approvalCredentials(to: string, options: { mailUrl?: string; mailDir: string; timeoutMs?: number }): Promise<Credentials> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    for (const text of await texts(to.toLowerCase(), options.mailUrl, options.mailDir)) {
      const apiKey = keyPattern.exec(text)?.[1];
      const webhookSecret = secretPattern.exec(text)?.[1];
      if (apiKey && webhookSecret) return { apiKey, webhookSecret };
    }
    if (Date.now() > deadline) {
      throw new Error(`no approval e-mail to ${to} within ${options.timeoutMs ?? 30_000} ms (${options.mailUrl ?? options.mailDir}); with SMTP_URL set, set DEMO_MAIL_URL or read your mailbox`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const verifyLinkPattern = /\/verify-email\?token=([A-Za-z0-9_-]{32,})$/m;

/** The token of the "application received" e-mail's verification link (§4), read the same way. */
export async function verificationToken(to: string, options: { mailUrl?: string | undefined; mailDir: string; timeoutMs?: number }): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    for (const text of await texts(to.toLowerCase(), options.mailUrl, options.mailDir)) {
      const token = verifyLinkPattern.exec(text)?.[1];
      if (token) return token;
    }
    if (Date.now() > deadline) throw new Error(`no verification e-mail to ${to} within ${options.timeoutMs ?? 30_000} ms (${options.mailUrl ?? options.mailDir})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
