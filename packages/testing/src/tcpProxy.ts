import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy that can stall a link: the fault "the network holds every byte
 * for a while, then lets it through" (#23), as a congested or flapping link
 * does to NATS or an upstream. While stalled, both directions of every
 * connection are held (bytes wait in the proxy, in order; nothing is lost);
 * `cut()` instead drops every connection at once.
 */
export interface TcpProxy {
  /** host:port of the proxy, to put in place of the target's. */
  host: string;
  port: number;
  /** Holds every byte both ways for `ms` (new connections too), then lets them through. */
  stall(ms: number): Promise<void>;
  /** Drops every open connection now. */
  cut(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let stalled = false;
  // Bytes read while stalled wait here, per destination, in order; `pipe` is not used because its own
  // backpressure handling would resume a source the stall paused.
  const held = new Map<Socket, Buffer[]>();
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (stalled) held.set(to, [...(held.get(to) ?? []), chunk]);
      else to.write(chunk);
    });

  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const closeBoth = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) {
      socket.on('error', closeBoth);
      socket.on('close', closeBoth);
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  const cut = () => {
    for (const [client, upstream] of [...pairs]) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  return {
    host: '127.0.0.1',
    port,
    async stall(ms) {
      stalled = true;
      await new Promise((resolve) => setTimeout(resolve, ms));
      stalled = false;
      for (const [to, chunks] of held) if (!to.destroyed) for (const chunk of chunks) to.write(chunk);
      held.clear();
    },
    cut,
    async close() {
      cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
