// Protects how a service names another's gRPC API (`<NAME>_ADDR`): one resolvable host:port, or a fixed list of replicas that grpc-js balances over.
import { z } from 'zod';
import { loadConfig } from '@esim/config';
import { describe, expect, it } from 'vitest';
import { grpcAddress } from '@esim/service';

const schema = z.object({ ORDERS_ADDR: grpcAddress('127.0.0.1:50054') });

describe('grpcAddress', () => {
  it('when a host:port or an ipv4: list of replicas is given, then it is kept as is; unset, the default', () => {
    expect(loadConfig(schema, { ORDERS_ADDR: 'orders:50054' }).ORDERS_ADDR).toBe('orders:50054');
    expect(loadConfig(schema, { ORDERS_ADDR: 'ipv4:127.0.0.1:41001,127.0.0.1:41002' }).ORDERS_ADDR).toBe('ipv4:127.0.0.1:41001,127.0.0.1:41002');
    expect(loadConfig(schema, {}).ORDERS_ADDR).toBe('127.0.0.1:50054');
  });

  it('when the address lacks a port, lists hosts without ipv4:, or has a blank entry, then the boot stops naming the variable', () => {
    for (const bad of ['orders', 'a:1,b:2', 'ipv4:127.0.0.1:1,', 'ipv4:orders:1']) {
      expect(() => loadConfig(schema, { ORDERS_ADDR: bad }), bad).toThrow(/ORDERS_ADDR: must be host:port/);
    }
  });
});
