// Protects #17's internal calls: every gRPC server refuses a caller without the platform's
// certificate (none, another CA's, expired), refuses PERMISSION_DENIED a service calling a
// method its role does not need, and serves the right caller; a client refuses a server that
// is not the service it meant to call. Real grpc-js, real TLS, certificates issued per test run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { AppError } from '@esim/errors';
import {
  addService,
  createCa,
  createClient,
  devTlsFiles,
  issueCertificate,
  platformAccess,
  startGrpcServer,
  type GrpcServer,
  type ServiceHandlers,
  type TlsFiles,
} from '@esim/grpc';
import { catalogV1 } from '@esim/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Methods = (typeof catalogV1.CatalogService)['method'];

const dir = mkdtempSync(join(tmpdir(), 'esim-pki-'));
const handled: string[] = [];
const handlers = {
  async getPlanPrice({ planId }) {
    handled.push(planId);
    return { planId, planName: 'France 5 GB', price: 900n, currency: 'USD', supplierSku: 'SKU-FR' };
  },
  async listPlans() {
    handled.push('listPlans');
    return { plans: [] };
  },
} as Partial<ServiceHandlers<Methods>> as ServiceHandlers<Methods>;

let server: GrpcServer;
let address: string;
const clients: Array<{ close(): void }> = [];

const files = (identity: string) => devTlsFiles(identity, dir);

/** Writes a certificate signed by `ca` with the given validity beside the platform's files. */
function customFiles(name: string, pair: { cert: string; key: string }, ca: string): TlsFiles {
  const paths = { ca: join(dir, `${name}-ca.crt`), cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  writeFileSync(paths.ca, ca);
  writeFileSync(paths.cert, pair.cert);
  writeFileSync(paths.key, pair.key);
  return paths;
}

function client(tls: TlsFiles | undefined, options: { server?: string } = {}) {
  const opened = createClient(catalogV1.CatalogService, address, { tls, ...options });
  clients.push(opened);
  return opened;
}

async function refusal(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const grpcCode = (error: AppError) => (error.cause as { code?: number }).code;

beforeAll(async () => {
  server = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    tls: files('catalog'),
    register: (s) => addService(s, catalogV1.CatalogService, handlers, () => {}, platformAccess()),
  });
  address = `127.0.0.1:${server.port}`;
});
afterAll(async () => {
  for (const opened of clients) opened.close();
  await server?.stop(100);
  rmSync(dir, { recursive: true, force: true });
});

describe('mutual TLS on every gRPC server', () => {
  it('when the caller is the service whose role needs the method, then the call is served', async () => {
    const answer = await client(files('orders')).getPlanPrice({ planId: 'plan_by_orders', tier: 'standard' });
    expect(answer.planId).toBe('plan_by_orders');
    expect(await client(files('gateway')).listPlans({})).toMatchObject({ plans: [] });
  });

  it('when a plaintext caller with no credentials calls, then it never reaches a handler', async () => {
    const error = await refusal(client(undefined).getPlanPrice({ planId: 'plan_plaintext', tier: 'standard' }, { deadlineMs: 3_000 }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(handled).not.toContain('plan_plaintext');
  });

  it('when another service calls a method its role does not need, then it is refused PERMISSION_DENIED', async () => {
    // The gateway lists plans but never prices one for an order: that is the orders saga's call.
    const error = await refusal(client(files('gateway')).getPlanPrice({ planId: 'plan_by_gateway', tier: 'standard' }));
    expect(grpcCode(error)).toBe(status.PERMISSION_DENIED);
    expect(error.code).toBe('INTERNAL');
    expect(error.cause).toMatchObject({ details: 'gateway may not call catalog.v1.CatalogService/GetPlanPrice' });
    // A service that calls nobody (mailer) may call nothing at all.
    expect(grpcCode(await refusal(client(files('mailer')).listPlans({})))).toBe(status.PERMISSION_DENIED);
    expect(handled).not.toContain('plan_by_gateway');
  });

  it('when the caller presents an expired certificate of the platform CA, then the handshake is refused', async () => {
    const ca = { cert: readFileSync(join(dir, 'ca', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'ca', 'ca.key'), 'utf8') };
    const expired = issueCertificate(ca, 'orders', { notBefore: new Date(Date.now() - 3 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
    const error = await refusal(client(customFiles('expired', expired, ca.cert)).getPlanPrice({ planId: 'plan_expired', tier: 'standard' }, { deadlineMs: 3_000 }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(handled).not.toContain('plan_expired');
  });

  it('when the caller presents a certificate of another CA naming a platform service, then the handshake is refused', async () => {
    const stranger = createCa({ commonName: 'not the platform' });
    const forged = issueCertificate(stranger, 'orders');
    const platformCa = readFileSync(join(dir, 'ca', 'ca.crt'), 'utf8');
    const error = await refusal(client(customFiles('forged', forged, platformCa)).getPlanPrice({ planId: 'plan_forged', tier: 'standard' }, { deadlineMs: 3_000 }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(handled).not.toContain('plan_forged');
  });

  it('when the server is not the service the client meant to call, then the client refuses it', async () => {
    const error = await refusal(client(files('orders'), { server: 'wallet' }).getPlanPrice({ planId: 'plan_wrong_server', tier: 'standard' }, { deadlineMs: 3_000 }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(handled).not.toContain('plan_wrong_server');
  });
});
