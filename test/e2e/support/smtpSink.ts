import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  messageId: string;
  receivedAt: string;
}

/** A real SMTP server that keeps every accepted message in memory, as a mailbox tests can read. */
export async function startSmtpSink(): Promise<{ port: number; messages: ReceivedMail[]; close(): Promise<void> }> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            messageId: mail.messageId ?? '',
            receivedAt: new Date().toISOString(),
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    messages,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
