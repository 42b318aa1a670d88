// Protects the stalling proxy the infrastructure fault test puts in front of NATS: while stalled nothing crosses in either direction, afterwards every byte arrives in order, and cut() drops the connections.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../src/tcpProxy.js';

let echo: Server;
let proxy: TcpProxy;
const sockets: Socket[] = [];

async function setUp(): Promise<Socket> {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  proxy = await startTcpProxy('127.0.0.1', (echo.address() as { port: number }).port);
  const client = connect(proxy.port, proxy.host);
  sockets.push(client);
  await new Promise<void>((resolve) => client.once('connect', resolve));
  return client;
}

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await proxy?.close();
  await new Promise((resolve) => echo?.close(resolve));
});

describe('startTcpProxy', () => {
  it('when the link is stalled, then nothing comes back until the stall ends, and then every byte in order', async () => {
    const client = await setUp();
    let received = '';
    client.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const stall = proxy.stall(300);
    for (const part of ['one ', 'two ', 'three']) client.write(part);
    await new Promise((r) => setTimeout(r, 200));
    expect(received).toBe('');
    await stall;
    await new Promise((r) => setTimeout(r, 100));
    expect(received).toBe('one two three');
  });

  it('when the link is cut, then the client sees its connection close', async () => {
    const client = await setUp();
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.on('error', () => {});
    proxy.cut();
    await closed;
    expect(client.destroyed).toBe(true);
  });
});
