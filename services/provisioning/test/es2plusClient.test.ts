// Protects the ES2+ client's kept-alive connections: an SM-DP+ that closes an idle connection just as a call is
// written to it (its keep-alive timeout meeting ours) must not turn a cancellation into a partner's 503. The server
// below drops every connection on its second request, unread, as such a server does.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successHeader } from '@esim/es2plus';
import { createEs2PlusClient } from '../src/smdp/es2plusClient.js';

let server: Server;
let baseUrl: string;
const answeredCalls: string[] = [];
const requestsBySocket = new Map<Socket, number>();
let connections = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const served = (requestsBySocket.get(req.socket) ?? 0) + 1;
    requestsBySocket.set(req.socket, served);
    if (served > 1) {
      req.socket.destroy();
      return;
    }
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      answeredCalls.push(JSON.parse(raw).header.functionCallIdentifier);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ header: successHeader() }));
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const cancel = (client: ReturnType<typeof createEs2PlusClient>, callId: string) =>
  client.cancelOrder({ callId, iccid: '8988247000001234567', finalProfileStatusIndicator: 'Unavailable' });

describe('ES2+ over a kept-alive connection the SM-DP+ closed', () => {
  it('when the pooled connections were dropped by the server, then each call is sent again on a fresh connection and succeeds once', async () => {
    const client = createEs2PlusClient({ baseUrl, requesterId: 'esim-platform-test', timeoutMs: 5_000, defaultSmdpAddress: 'smdp.test' });
    // Two calls at once leave two pooled connections; the next two calls are written to them and dropped unread.
    expect(await Promise.all([cancel(client, 'call-1'), cancel(client, 'call-2')])).toEqual([
      { kind: 'ok', statusCode: 200 },
      { kind: 'ok', statusCode: 200 },
    ]);
    expect(await Promise.all([cancel(client, 'call-3'), cancel(client, 'call-4')])).toEqual([
      { kind: 'ok', statusCode: 200 },
      { kind: 'ok', statusCode: 200 },
    ]);
    expect(answeredCalls.sort()).toEqual(['call-1', 'call-2', 'call-3', 'call-4']);
    expect(connections).toBe(4);
  });

  it('when a fresh connection is dropped, then the call is a transient network failure, not sent again', async () => {
    const dropAll = createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => dropAll.listen(0, '127.0.0.1', resolve));
    let dropped = 0;
    dropAll.on('request', () => (dropped += 1));
    try {
      const client = createEs2PlusClient({ baseUrl: `http://127.0.0.1:${(dropAll.address() as AddressInfo).port}`, requesterId: 'esim-platform-test', timeoutMs: 5_000, defaultSmdpAddress: 'smdp.test' });
      expect(await cancel(client, 'call-5')).toEqual({ kind: 'transient', cause: 'network_error', statusCode: null, detail: 'network error: ECONNRESET' });
      expect(dropped).toBe(1);
    } finally {
      await new Promise((resolve) => dropAll.close(resolve));
    }
  });
});
