import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhooks, type WebhookEvent } from '@esim/sdk';

/** A local webhook endpoint that verifies every request with the SDK and remembers the events that passed. */
export interface Receiver {
  url: string;
  verified: WebhookEvent[];
  rejected: number;
  setSecret(secret: string): void;
  waitFor(type: string, timeoutMs: number): Promise<WebhookEvent>;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  let secret = '';
  const verified: WebhookEvent[] = [];
  const state = { rejected: 0 };
  const server: Server = createServer(async (req, res) => {
    const rawBody = Buffer.concat(await req.toArray());
    try {
      // Both signatures are checked: the Standard Webhooks one (with its replay window) and X-SERVICE-Signature.
      const event = await webhooks.verify(rawBody, req.headers, secret, { scheme: 'standard' });
      await webhooks.verify(rawBody, req.headers, secret, { scheme: 'service' });
      if (!verified.some((e) => e.id === event.id)) verified.push(event);
      res.writeHead(204).end();
    } catch {
      state.rejected += 1;
      res.writeHead(400).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/webhooks`,
    verified,
    get rejected() {
      return state.rejected;
    },
    setSecret: (value) => void (secret = value),
    async waitFor(type, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const event = verified.find((e) => e.type === type);
        if (event) return event;
        if (Date.now() > deadline) throw new Error(`no verified ${type} webhook within ${timeoutMs} ms (${state.rejected} rejected)`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
