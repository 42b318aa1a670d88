// Protects the catalog's configuration defaults, notably that the development catalog is never loaded into production unless asked for.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@esim/config';
import { readConfig } from '../src/config.js';

describe('catalog config', () => {
  it('when nothing is set, then the documented defaults apply and the seed is loaded', () => {
    expect(readConfig({})).toMatchObject({ GRPC_PORT: 50052, HEALTH_PORT: 9092, CURRENCY: 'USD', CATALOG_SEED: true, CATALOG_REFRESH_MS: 30_000, PLATFORM_NAMESPACE: 'esim' });
  });

  it('when NODE_ENV is production, then the seed is off unless CATALOG_SEED turns it on', () => {
    expect(readConfig({ NODE_ENV: 'production' }).CATALOG_SEED).toBe(false);
    expect(readConfig({ NODE_ENV: 'production', CATALOG_SEED: 'true' }).CATALOG_SEED).toBe(true);
    expect(readConfig({ CATALOG_SEED: 'false' }).CATALOG_SEED).toBe(false);
  });

  it('when a value is unusable, then the boot fails naming the variable', () => {
    expect(() => readConfig({ CATALOG_SEED: 'perhaps' })).toThrow(ConfigError);
    expect(() => readConfig({ CURRENCY: 'usd' })).toThrow(/CURRENCY/);
    expect(() => readConfig({ CATALOG_REFRESH_MS: '10' })).toThrow(/CATALOG_REFRESH_MS/);
  });
});
