// Protects provisioning's configuration: the documented defaults (15-minute window, 10 s supplier timeout) and a boot that names any unusable variable.
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';

describe('provisioning config', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    expect(readConfig({})).toMatchObject({
      HEALTH_PORT: 9096,
      GRPC_PORT: 50056,
      SUPPLIER_URL: 'http://127.0.0.1:8090',
      SUPPLIER_TIMEOUT_MS: 10_000,
      PROVISIONING_RETRY_WINDOW_MS: 900_000,
      PROVISIONING_RETRY_BASE_MS: 1_000,
      PROVISIONING_RETRY_MAX_MS: 60_000,
    });
  });

  it('when a value is unusable, then the boot fails naming the variable', () => {
    expect(() => readConfig({ SUPPLIER_URL: 'ftp://supplier' })).toThrow(/SUPPLIER_URL/);
    expect(() => readConfig({ SUPPLIER_TIMEOUT_MS: '0' })).toThrow(/SUPPLIER_TIMEOUT_MS/);
    expect(() => readConfig({ PROVISIONING_RETRY_WINDOW_MS: 'soon' })).toThrow(/PROVISIONING_RETRY_WINDOW_MS/);
    expect(() => readConfig({ PROVISIONING_RETRY_BASE_MS: '5000', PROVISIONING_RETRY_MAX_MS: '1000' })).toThrow(/PROVISIONING_RETRY_MAX_MS/);
  });
});
