// Protects the gRPC adapter: an AppError's code, detail and field errors cross a real grpc-js call intact, a bug becomes INTERNAL without its message, and a server that never answers becomes UNAVAILABLE.
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { status, type ServiceError } from '@grpc/grpc-js';
import { AppError, errorCodes, type ErrorCode } from '@esim/errors';
import { addService, createClient, startGrpcServer, type GrpcServer, type ServiceClient, type ServiceHandlers } from '@esim/grpc';
import { catalogV1 } from '@esim/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Methods = (typeof catalogV1.CatalogService)['method'];

const internals: Array<{ error: unknown; method: string }> = [];
let server: GrpcServer;
let client: ServiceClient<Methods>;

/** GetPlanPrice's plan id says what the handler does: answer, throw a code, throw a bug, or hang. */
const handlers = {
  async getPlanPrice({ planId }) {
    if (planId === 'plan_ok') return { planId, planName: 'France 5 GB', price: 9_007_199_254_740_993n, currency: 'USD', supplierSku: 'SKU-FR' };
    if (planId === 'field-errors') {
      throw new AppError('VALIDATION_ERROR', 'planId: must start with plan_; tier: unknown', {
        errors: [
          { path: 'planId', message: 'must start with plan_' },
          { path: 'tier', message: 'unknown' },
        ],
      });
    }
    if (planId === 'bug') throw new TypeError('Cannot read properties of undefined (reading "rows") at /srv/catalog/store.ts:42');
    if (planId === 'internal') throw new AppError('INTERNAL', 'connection to 10.0.0.7:5432 refused');
    if (planId === 'hang') return new Promise(() => {});
    throw new AppError(planId as ErrorCode, `detail for ${planId}`);
  },
} as Partial<ServiceHandlers<Methods>> as ServiceHandlers<Methods>;

beforeAll(async () => {
  server = await startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    register: (s) => addService(s, catalogV1.CatalogService, handlers, (error, method) => internals.push({ error, method })),
  });
  client = createClient(catalogV1.CatalogService, `127.0.0.1:${server.port}`);
});
afterAll(async () => {
  client?.close();
  await server?.stop(100);
});

async function failure(planId: string, deadlineMs?: number): Promise<AppError> {
  const error = await client.getPlanPrice({ planId, tier: 'standard' }, { deadlineMs }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('a call that succeeds', () => {
  it('when the handler answers, then the client gets the message with its int64 as a bigint', async () => {
    const answer = await client.getPlanPrice({ planId: 'plan_ok', tier: 'premium' });
    expect(answer).toMatchObject({ planId: 'plan_ok', planName: 'France 5 GB', price: 9_007_199_254_740_993n, currency: 'USD', supplierSku: 'SKU-FR' });
  });
});

describe('AppError across the wire', () => {
  it('when a handler throws any AppError code but INTERNAL, then the client rejects with that code and detail', async () => {
    for (const code of errorCodes.filter((c) => c !== 'INTERNAL')) {
      const error = await failure(code);
      expect({ code: error.code, detail: error.message }).toEqual({ code, detail: `detail for ${code}` });
    }
  });

  const statuses: Array<[ErrorCode, status]> = [
    ['VALIDATION_ERROR', status.INVALID_ARGUMENT],
    ['PLAN_NOT_FOUND', status.NOT_FOUND],
    ['INSUFFICIENT_BALANCE', status.FAILED_PRECONDITION],
    ['INSUFFICIENT_SCOPE', status.PERMISSION_DENIED],
    ['EMAIL_ALREADY_REGISTERED', status.ALREADY_EXISTS],
    ['RATE_LIMITED', status.RESOURCE_EXHAUSTED],
    ['UNAVAILABLE', status.UNAVAILABLE],
  ];
  for (const [code, grpcStatus] of statuses) {
    it(`when a handler throws ${code}, then the wire status is ${status[grpcStatus]}, for clients that only read the status`, async () => {
      const error = await failure(code);
      expect((error.cause as ServiceError).code).toBe(grpcStatus);
    });
  }

  it('when a handler throws a validation error with field errors, then the client gets every field error', async () => {
    const error = await failure('field-errors');
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.errors).toEqual([
      { path: 'planId', message: 'must start with plan_' },
      { path: 'tier', message: 'unknown' },
    ]);
  });
});

describe('bugs', () => {
  it('when a handler throws something that is not an AppError, then the client gets INTERNAL without its message, and the server reports the original', async () => {
    internals.length = 0;
    const error = await failure('bug');
    expect(error.code).toBe('INTERNAL');
    expect((error.cause as ServiceError).code).toBe(status.INTERNAL);
    expect(error.message).not.toMatch(/rows|store\.ts|Cannot read/);
    expect(internals).toHaveLength(1);
    expect(internals[0]!.error).toBeInstanceOf(TypeError);
    expect(internals[0]!.method).toBe('catalog.v1.CatalogService/GetPlanPrice');
  });

  it('when a handler throws AppError INTERNAL, then its detail stays on the server too', async () => {
    const error = await failure('internal');
    expect(error.code).toBe('INTERNAL');
    expect(error.message).not.toContain('10.0.0.7');
  });
});

describe('a server that does not answer', () => {
  it('when nothing listens at the address, then the call rejects with UNAVAILABLE', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createNetServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const nowhere = createClient(catalogV1.CatalogService, `127.0.0.1:${port}`);
    try {
      const error = await nowhere.getPlanPrice({ planId: 'plan_ok', tier: 'standard' }, { deadlineMs: 2_000 }).then(
        () => undefined,
        (e: unknown) => e as AppError,
      );
      expect(error).toBeInstanceOf(AppError);
      expect(error!.code).toBe('UNAVAILABLE');
    } finally {
      nowhere.close();
    }
  });

  it('when the handler does not answer before the deadline, then the call rejects with UNAVAILABLE', async () => {
    const error = await failure('hang', 200);
    expect(error.code).toBe('UNAVAILABLE');
    expect((error.cause as ServiceError).code).toBe(status.DEADLINE_EXCEEDED);
  });
});
