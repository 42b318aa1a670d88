import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Config } from './config.js';

export interface OutgoingMail {
  eventId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  /** Stable across redeliveries, so a receiver can recognise a resend of the same mail. */
  messageId: string;
}

export interface MailTransport {
  kind: 'smtp' | 'file';
  /** Resolves once the SMTP server answered 250 (or the file is written); the result says where it went. */
  send(mail: OutgoingMail): Promise<{ location: string }>;
  close(): void;
}

const envelopeOf = ({ from, to, subject, text, messageId }: OutgoingMail) => ({ from, to, subject, text, messageId });

/** Every step of an SMTP exchange is bounded, so a stalled server fails the send (and it is retried) instead of hanging. */
const smtpTimeoutMs = 10_000;

/** SMTP_URL set: real SMTP, one connection per mail (volume is a few mails per partner). */
function smtpTransport(url: string): MailTransport {
  // nodemailer.createTransport({ url, …timeouts }) drops every option but the URL,
  // so the SMTP transport is built directly; query parameters in SMTP_URL still win.
  const transporter = nodemailer.createTransport(
    new SMTPTransport({ url, connectionTimeout: smtpTimeoutMs, greetingTimeout: smtpTimeoutMs, socketTimeout: smtpTimeoutMs, dnsTimeout: smtpTimeoutMs }),
  );
  return {
    kind: 'smtp',
    async send(mail) {
      const info = await transporter.sendMail(envelopeOf(mail));
      return { location: info.response };
    },
    close: () => transporter.close(),
  };
}

/**
 * SMTP_URL unset (local development): each mail is written as an .eml file
 * a developer opens in a mail client. The file holds the secrets in clear,
 * so it is readable by its owner only.
 */
function fileTransport(dir: string): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'file',
    async send(mail) {
      const { message } = await transporter.sendMail(envelopeOf(mail));
      // `buffer: true` yields a Buffer; the type also allows the streaming variant.
      if (!Buffer.isBuffer(message)) throw new Error('stream transport returned no buffer');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Colons are not allowed in file names on every OS a developer uses.
      const stamp = new Date().toISOString().replaceAll(':', '-');
      const file = join(dir, `${stamp}-${mail.eventId}.eml`);
      writeFileSync(file, message, { mode: 0o600 });
      return { location: file };
    },
    close: () => transporter.close(),
  };
}

export function createMailTransport(config: Pick<Config, 'SMTP_URL' | 'MAIL_DIR'>): MailTransport {
  return config.SMTP_URL ? smtpTransport(config.SMTP_URL) : fileTransport(config.MAIL_DIR);
}
