import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy that can stall a link: the fault "the network holds every byte
 * for a while, then lets it through" (#23), as a congested or flapping link
 * does to NATS or an upstream. While stalled, both directions of every
 * connection are paused (bytes wait in the kernel buffers, nothing is lost);
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
    client.pipe(upstream);
    upstream.pipe(client);
    if (stalled) for (const socket of pair) socket.pause();
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
      for (const pair of pairs) for (const socket of pair) socket.pause();
      await new Promise((resolve) => setTimeout(resolve, ms));
      stalled = false;
      for (const pair of pairs) for (const socket of pair) socket.resume();
    },
    cut,
    async close() {
      cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
