// Protects how calls spread over replicas: a client balances each call across every address its target resolves to (not one connection to one pod), and servers that recycle connections for re-resolution never fail a call doing so.
import { addService, channelTarget, createClient, startGrpcServer, type GrpcServer, type ServiceHandlers } from '@esim/grpc';
import { catalogV1 } from '@esim/proto';
import { afterAll, describe, expect, it } from 'vitest';

type Methods = (typeof catalogV1.CatalogService)['method'];

const servers: GrpcServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop(100);
});

/** A replica that answers with its own name. */
async function replica(name: string, maxConnectionAgeMs?: number): Promise<GrpcServer> {
  const handlers = {
    async getPlanPrice({ planId }) {
      return { planId, planName: name, price: 1n, currency: 'USD', supplierSku: 'SKU' };
    },
  } as Partial<ServiceHandlers<Methods>> as ServiceHandlers<Methods>;
  const server = await startGrpcServer({ port: 0, host: '127.0.0.1', maxConnectionAgeMs, register: (s) => addService(s, catalogV1.CatalogService, handlers, () => {}) });
  servers.push(server);
  return server;
}

describe('client-side balancing', () => {
  it('when an address is host:port, then the channel resolves it through DNS (every pod behind a headless Service); an explicit scheme is kept', () => {
    expect(channelTarget('catalog:50052')).toBe('dns:///catalog:50052');
    expect(channelTarget('127.0.0.1:50052')).toBe('dns:///127.0.0.1:50052');
    expect(channelTarget('dns:///catalog.esim.svc:50052')).toBe('dns:///catalog.esim.svc:50052');
    expect(channelTarget('ipv4:10.0.0.1:1,10.0.0.2:1')).toBe('ipv4:10.0.0.1:1,10.0.0.2:1');
  });

  it("when the target resolves to two replicas, then successive calls are answered by both (grpc-js's default, pick_first, would send all to the first)", async () => {
    const [a, b] = [await replica('a'), await replica('b')];
    const client = createClient(catalogV1.CatalogService, `ipv4:127.0.0.1:${a.port},127.0.0.1:${b.port}`);
    try {
      await client.ready(5_000);
      const answeredBy: string[] = [];
      for (let i = 0; i < 10; i++) answeredBy.push((await client.getPlanPrice({ planId: `plan_${i}`, tier: 'standard' })).planName);
      expect(new Set(answeredBy)).toEqual(new Set(['a', 'b']));
    } finally {
      client.close();
    }
  });

  it('when a server ends connections at their maximum age, then calls spanning several ages all succeed', async () => {
    const server = await replica('aged', 200);
    const client = createClient(catalogV1.CatalogService, `127.0.0.1:${server.port}`);
    try {
      const results: string[] = [];
      for (let i = 0; i < 12; i++) {
        results.push((await client.getPlanPrice({ planId: `plan_${i}`, tier: 'standard' })).planName);
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
      expect(results).toEqual(Array(12).fill('aged'));
    } finally {
      client.close();
    }
  });
});
