import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface AcceptedMail {
  messageId: string;
  to: string;
  subject: string;
  text: string;
}

export interface SmtpSink {
  url: string;
  /** Messages answered with 250, in order. */
  accepted: AcceptedMail[];
  /** Resolves with the Message-ID of the message the sink holds without answering. */
  stalled: Promise<string>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback that records what it accepts. With
 * `stallOnArrival: n`, the n-th message to arrive is read in full and then
 * never answered, as a server that hangs before its 250; later arrivals of
 * that same message are accepted normally.
 */
export async function startSmtpSink(options: { port?: number; stallOnArrival?: number } = {}): Promise<SmtpSink> {
  const accepted: AcceptedMail[] = [];
  let arrivals = 0;
  let markStalled: (messageId: string) => void = () => {};
  const stalled = new Promise<string>((resolve) => (markStalled = resolve));

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // Its default reverse DNS lookup of 127.0.0.1 costs ~150 ms per connection.
    disableReverseLookup: true,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          arrivals += 1;
          const messageId = mail.messageId ?? '';
          if (arrivals === options.stallOnArrival) {
            markStalled(messageId);
            return; // No callback: the client waits for a reply that never comes.
          }
          const to = session.envelope.rcptTo.map((rcpt) => rcpt.address).join(',');
          accepted.push({ messageId, to, subject: mail.subject ?? '', text: mail.text ?? '' });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    accepted,
    stalled,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
