import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body exactly as it arrived. */
  body: string;
  receivedAt: number;
  /** The status the receiver answered with; undefined while it hangs or delays. */
  answered?: number;
}

/** How the receiver answers one request: a status (optionally after a delay) or no answer at all. */
export type Behaviour = { status: number; delayMs?: number } | 'hang';

export interface Receiver {
  port: number;
  /** `http://127.0.0.1:<port><path>`. */
  url(path: string): string;
  /** Every request in arrival order, recorded once its body is complete. */
  requests: ReceivedRequest[];
  /** TCP connections accepted, including ones that never sent a request. */
  connections(): number;
  /** Sets how requests to `path` are answered; `n` counts that path's requests from 1. */
  behave(path: string, answer: (request: ReceivedRequest, n: number) => Behaviour): void;
  on(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1, standing in for partners' endpoints. */
export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const behaviours = new Map<string, (request: ReceivedRequest, n: number) => Behaviour>();
  const counts = new Map<string, number>();
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const received: ReceivedRequest = { path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      requests.push(received);
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const behaviour = behaviours.get(path)?.(received, n) ?? { status: 200 };
      if (behaviour === 'hang') return;
      const answer = () => {
        received.answered = behaviour.status;
        res.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end('ok');
      };
      if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
      else answer();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    connections: () => connections,
    behave: (path, answer) => void behaviours.set(path, answer),
    on: (path) => requests.filter((request) => request.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
