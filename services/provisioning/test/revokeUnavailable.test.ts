// Protects RevokeBundle when the supplier is down: UNAVAILABLE (safe to retry), never an outcome the cancel saga would act on.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@esim/ids';
import { createTestEnv, type ProvisioningClient, type TestEnv } from './support/testEnv.js';

let env: TestEnv;
let client: ProvisioningClient;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  env = await createTestEnv();
  client = env.client(await env.start({ SUPPLIER_URL: `http://127.0.0.1:${await closedPort()}`, SUPPLIER_TIMEOUT_MS: '500' }));
});
afterAll(() => env?.cleanup());

describe('RevokeBundle with the supplier down', () => {
  it('when the supplier cannot be reached, then it is UNAVAILABLE', async () => {
    await expect(client.revokeBundle({ reference: newId('ord'), iccid: '8900000000000000001', firstBundle: true })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
