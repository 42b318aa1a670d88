import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between a service and Postgres that can stall chosen client
 * messages: the fault "a process paused between its statements and its
 * COMMIT" (#23) made exact. It reads the frontend protocol (the startup
 * message, then type byte + length) and, while `hold` matches a simple
 * Query's SQL, keeps that message (and everything after it on that
 * connection) until `release()` or the hold's `ms` elapse. Everything else
 * passes through unchanged, both ways.
 */
export interface PgProxy {
  /** postgres://… through the proxy, for the service's DATABASE_URL. */
  url: string;
  /** Stall simple queries whose SQL matches `pattern` for `ms` (or until `release`). */
  hold(pattern: RegExp, ms: number): void;
  /** Stops holding; stalled messages go on now. */
  release(): void;
  /** Resolves the next time a matching message is stalled. */
  held(): Promise<void>;
  close(): Promise<void>;
}

export async function startPgProxy(databaseUrl: string): Promise<PgProxy> {
  const target = new URL(databaseUrl);
  let rule: { pattern: RegExp; ms: number } | undefined;
  const releases = new Set<() => void>();
  let onHeld: Array<() => void> = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
    upstream.pipe(client);

    let buffer = Buffer.alloc(0);
    let started = false;
    let stalled = false;
    const queue: Buffer[] = [];

    const flush = () => {
      while (!stalled && queue.length > 0) {
        const message = queue.shift()!;
        if (message[0] === 0x51 /* 'Q' */ && rule) {
          const sql = message.subarray(5, message.length - 1).toString('utf8');
          if (rule.pattern.test(sql)) {
            stalled = true;
            const resume = () => {
              releases.delete(resume);
              clearTimeout(timer);
              stalled = false;
              upstream.write(message);
              flush();
            };
            const timer = setTimeout(resume, rule.ms);
            releases.add(resume);
            for (const notify of onHeld.splice(0)) notify();
            return;
          }
        }
        upstream.write(message);
      }
    };

    client.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          // Startup (or SSLRequest): length-prefixed, no type byte.
          if (buffer.length < 4) return;
          const length = buffer.readUInt32BE(0);
          if (buffer.length < length) return;
          const message = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          const code = message.length >= 8 ? message.readUInt32BE(4) : 0;
          // SSLRequest / GSSENCRequest are followed by another startup message; the real startup (3.0) ends this phase.
          if (code !== 80877103 && code !== 80877104) started = true;
          queue.push(Buffer.from(message));
          flush();
          continue;
        }
        if (buffer.length < 5) return;
        const length = buffer.readUInt32BE(1);
        if (buffer.length < length + 1) return;
        queue.push(Buffer.from(buffer.subarray(0, length + 1)));
        buffer = buffer.subarray(length + 1);
        flush();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    hold(pattern, ms) {
      rule = { pattern, ms };
    },
    release() {
      rule = undefined;
      for (const resume of [...releases]) resume();
    },
    held: () => new Promise<void>((resolve) => onHeld.push(resolve)),
    async close() {
      rule = undefined;
      for (const resume of [...releases]) resume();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
