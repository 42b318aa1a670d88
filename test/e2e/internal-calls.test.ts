// Protects #17's internal calls on the running platform: any process that reaches a service's gRPC
// port without the platform's certificate reaches no handler (the probe: a plaintext client
// sending an empty message to one method of each service), and a service calling a method its role
// does not need is refused PERMISSION_DENIED, while the platform itself keeps serving.
import { status } from '@grpc/grpc-js';
import { AppError } from '@esim/errors';
import { createClient, devTlsFiles } from '@esim/grpc';
import { catalogV1, ordersV1, partnersV1, walletV1, webhooksV1 } from '@esim/proto';
import { describe, expect, it } from 'vitest';
import { platform, registerPartner } from './support/client.js';

const grpcPort = (service: string) => platform.ports[service]!.grpc!;

async function failure(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('internal calls', () => {
  it('when a plaintext client calls one method of each service, then none is reached', async () => {
    const probes = [
      () => createClient(catalogV1.CatalogService, `127.0.0.1:${grpcPort('catalog')}`).listPlans({}, { deadlineMs: 3_000 }),
      () => createClient(walletV1.WalletService, `127.0.0.1:${grpcPort('wallet')}`).reserve({}, { deadlineMs: 3_000 }),
      () => createClient(ordersV1.OrdersService, `127.0.0.1:${grpcPort('orders')}`).createOrder({}, { deadlineMs: 3_000 }),
      () => createClient(partnersV1.PartnersService, `127.0.0.1:${grpcPort('partners')}`).register({}, { deadlineMs: 3_000 }),
      () => createClient(webhooksV1.WebhooksService, `127.0.0.1:${grpcPort('webhooks')}`).listDeliveries({}, { deadlineMs: 3_000 }),
    ];
    for (const probe of probes) expect((await failure(probe())).code).toBe('UNAVAILABLE');
  });

  it('when a service with the platform\'s certificate calls a method its role does not need, then it is refused PERMISSION_DENIED', async () => {
    // The gateway's identity asking the wallet for a debit: only the orders saga may.
    const asGateway = createClient(walletV1.WalletService, `127.0.0.1:${grpcPort('wallet')}`, { tls: devTlsFiles('gateway') });
    const refused = await failure(asGateway.reserve({ orderId: 'ord_x', partnerId: 'ptn_x', amount: 1n, description: 'x' }));
    expect((refused.cause as { code?: number }).code).toBe(status.PERMISSION_DENIED);
    // The webhooks service may read a partner's endpoint, not its profile.
    const asWebhooks = createClient(partnersV1.PartnersService, `127.0.0.1:${grpcPort('partners')}`, { tls: devTlsFiles('webhooks') });
    expect(((await failure(asWebhooks.getPartner({ id: 'ptn_x' }))).cause as { code?: number }).code).toBe(status.PERMISSION_DENIED);
    asGateway.close();
    asWebhooks.close();
  });

  it('when the platform serves, then its own internal calls pass (the gateway registering a partner)', async () => {
    const { answer } = await registerPartner();
    expect(answer.status).toBe(201);
  });
});
