// Protects RevokeBundle against a supplier that takes the request and answers late (#23): the supplier call ends
// strictly inside the caller's deadline, and its outcome is UNCONFIRMED (it may have revoked), never UNAVAILABLE
// ("nothing changed"), so the cancel saga keeps its intent and asks again.
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { provisioningV1 } from '@esim/proto';
import { createTestEnv, type ProvisioningClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: ProvisioningClient;
const held: Socket[] = [];
// A supplier that reads the request and never answers (a stalled link, a paused process).
const stalled = createServer((socket) => {
  held.push(socket);
  socket.resume();
});

beforeAll(async () => {
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  const { port } = stalled.address() as { port: number };
  env = await createTestEnv();
  // The supplier timeout is longer than the caller's deadline: the caller's deadline must bound the call.
  client = env.client(await env.start({ SUPPLIER_URL: `http://127.0.0.1:${port}`, SUPPLIER_TIMEOUT_MS: '30000' }));
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => stalled.close(resolve));
  await env?.cleanup();
});

describe('RevokeBundle with a supplier that answers late', () => {
  it('when the supplier takes the request and does not answer within the caller\'s deadline, then the answer is UNCONFIRMED, before that deadline', async () => {
    const answer = await client.revokeBundle({ reference: newId('ord'), iccid: '8900000000000000001', firstBundle: true }, { deadlineMs: 2_500 });
    expect(answer.outcome).toBe(provisioningV1.RevokeOutcome.UNCONFIRMED);
    expect(held.length).toBeGreaterThan(0);
  });
});
