// Protects the wallet's configuration defaults and that a bad value stops the boot naming the variable.
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';

describe('wallet config', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    expect(readConfig({})).toMatchObject({ GRPC_PORT: 50053, HEALTH_PORT: 9094, CURRENCY: 'USD', PLATFORM_NAMESPACE: 'esim' });
  });

  it('when a value is unusable, then the boot fails naming the variable', () => {
    expect(() => readConfig({ CURRENCY: 'usd' })).toThrow(/CURRENCY/);
    expect(() => readConfig({ GRPC_PORT: 'abc' })).toThrow(/GRPC_PORT/);
  });
});
