import { randomBytes } from 'node:crypto';
import { seal, webhookSecretRecord } from '@esim/crypto';
import { AppError } from '@esim/errors';
import { addService, devTlsFiles, startGrpcServer, type ServiceHandlers } from '@esim/grpc';
import { partnersV1 } from '@esim/proto';

type PartnersMethods = typeof partnersV1.PartnersService.method;

export interface FakePartners {
  address: string;
  /** Sets (or, with undefined, removes) a partner's URL and secret; the next attempt sees the change. */
  setEndpoint(partnerId: string, endpoint: { url?: string | undefined; secret?: string | undefined; previousSecret?: string | undefined }): void;
  /** GetWebhookEndpoint calls answered for this partner so far. */
  lookups(partnerId: string): number;
  /** Makes GetWebhookEndpoint fail as if the partners service were down. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

/** `whsec_` + base64 of 32 random bytes, as the partners service issues them. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * A PartnersService that only answers GetWebhookEndpoint, sealing the secret
 * under the data key on every call exactly as the real one stores it; every
 * other method is INTERNAL, so an unexpected call fails the test loudly.
 */
export async function startFakePartners(dataKey: Buffer): Promise<FakePartners> {
  const endpoints = new Map<string, { url?: string | undefined; secret?: string | undefined; previousSecret?: string | undefined }>();
  let down = false;
  const lookups = new Map<string, number>();
  const handlers = Object.fromEntries(
    partnersV1.PartnersService.methods.map((method) => [
      method.localName,
      async () => {
        throw new AppError('INTERNAL', `fake partners: ${method.name} is not implemented`);
      },
    ]),
  ) as unknown as ServiceHandlers<PartnersMethods>;
  handlers.getWebhookEndpoint = async ({ partnerId }) => {
    if (down) throw new AppError('UNAVAILABLE', 'partners is down');
    lookups.set(partnerId, (lookups.get(partnerId) ?? 0) + 1);
    const endpoint = endpoints.get(partnerId);
    if (!endpoint) throw new AppError('PARTNER_NOT_FOUND', `No partner ${partnerId}.`);
    return {
      url: endpoint.url,
      sealedSecret: endpoint.secret ? seal(dataKey, endpoint.secret, webhookSecretRecord(partnerId)) : '',
      status: 'approved',
      email: `${partnerId}@partner.example`,
      previousSealedSecret: endpoint.previousSecret ? seal(dataKey, endpoint.previousSecret, webhookSecretRecord(partnerId)) : undefined,
      previousSecretExpiresAt: endpoint.previousSecret ? new Date(Date.now() + 3_600_000).toISOString() : undefined,
    };
  };
  const server = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    // The real partners service's identity: callers under test verify it (mutual TLS).
    tls: devTlsFiles('partners'),
    register: (grpcServer) => addService(grpcServer, partnersV1.PartnersService, handlers, () => {}),
  });
  return {
    address: `127.0.0.1:${server.port}`,
    setEndpoint: (partnerId, endpoint) => void endpoints.set(partnerId, endpoint),
    lookups: (partnerId) => lookups.get(partnerId) ?? 0,
    setDown: (value) => void (down = value),
    close: () => server.stop(500),
  };
}
