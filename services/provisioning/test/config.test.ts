// Protects provisioning's configuration: the documented defaults (15-minute window, 10 s upstream timeout, the simulator as both upstreams outside production), a boot that names any unusable variable, and a production boot that refuses simulated or unset upstreams and missing ES2+ certificates (contract §8).
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';

describe('provisioning config', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    expect(readConfig({})).toMatchObject({
      HEALTH_PORT: 9096,
      GRPC_PORT: 50056,
      SMDP_ES2_URL: 'http://127.0.0.1:8090',
      CONNECTIVITY_URL: 'http://127.0.0.1:8090',
      SMDP_REQUESTER_ID: 'esim-platform',
      ES2_NOTIFY_PORT: 8443,
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

  it('when SUPPLIER_URL is set and CONNECTIVITY_URL is not, then it names the connectivity provider (the alias)', () => {
    expect(readConfig({ SUPPLIER_URL: 'https://provider.example.com' }).CONNECTIVITY_URL).toBe('https://provider.example.com');
    expect(readConfig({ SUPPLIER_URL: 'https://old.example.com', CONNECTIVITY_URL: 'https://new.example.com' }).CONNECTIVITY_URL).toBe('https://new.example.com');
  });

  it('when the test-mode upstreams are not set, then they are the simulator, whatever the live ones name (§14)', () => {
    expect(readConfig({})).toMatchObject({ TEST_MODE_SMDP_ES2_URL: 'http://127.0.0.1:8090', TEST_MODE_CONNECTIVITY_URL: 'http://127.0.0.1:8090' });
    expect(readConfig({ SMDP_ES2_URL: 'http://smdp.example.com', CONNECTIVITY_URL: 'http://provider.example.com' })).toMatchObject({
      TEST_MODE_SMDP_ES2_URL: 'http://127.0.0.1:8090',
      TEST_MODE_CONNECTIVITY_URL: 'http://127.0.0.1:8090',
    });
    expect(readConfig({ TEST_MODE_CONNECTIVITY_URL: 'http://supplier-sim:8090' }).TEST_MODE_CONNECTIVITY_URL).toBe('http://supplier-sim:8090');
    expect(() => readConfig({ TEST_MODE_SMDP_ES2_URL: 'ftp://sim' })).toThrow(/TEST_MODE_SMDP_ES2_URL/);
  });

  it('when production names the simulator as test mode\'s upstreams, then it boots: the simulator serves test mode alone', () => {
    expect(readConfig({ ...production, TEST_MODE_SMDP_ES2_URL: 'http://supplier-sim:8090', TEST_MODE_CONNECTIVITY_URL: 'http://supplier-sim:8090' })).toMatchObject({
      SMDP_ES2_URL: production.SMDP_ES2_URL,
      TEST_MODE_SMDP_ES2_URL: 'http://supplier-sim:8090',
    });
  });

  const production = {
    NODE_ENV: 'production',
    SMDP_ES2_URL: 'https://smdp.vendor.example.com/es2',
    CONNECTIVITY_URL: 'https://api.provider.example.com',
    SMDP_CLIENT_CERT: '/secrets/client.pem',
    SMDP_CLIENT_KEY: '/secrets/client.key',
    SMDP_CA: '/secrets/ca.pem',
  };

  it('when production names real upstreams and the ES2+ certificates, then it boots', () => {
    expect(readConfig(production)).toMatchObject({ SMDP_ES2_URL: production.SMDP_ES2_URL, CONNECTIVITY_URL: production.CONNECTIVITY_URL, SMDP_ADDRESS: 'smdp.vendor.example.com' });
  });

  it.each([
    ['SMDP_ES2_URL', { SMDP_ES2_URL: undefined }],
    ['CONNECTIVITY_URL', { CONNECTIVITY_URL: undefined }],
    ['SMDP_ES2_URL', { SMDP_ES2_URL: 'https://supplier-sim:8090' }],
    ['SMDP_ES2_URL', { SMDP_ES2_URL: 'http://127.0.0.1:8090' }],
    ['CONNECTIVITY_URL', { CONNECTIVITY_URL: 'http://supplier-sim.esim.svc:8090' }],
    ['CONNECTIVITY_URL', { CONNECTIVITY_URL: undefined, SUPPLIER_URL: 'http://supplier-sim:8090' }],
    ['SMDP_CLIENT_CERT', { SMDP_CLIENT_CERT: undefined, SMDP_CLIENT_KEY: undefined, SMDP_CA: undefined }],
    ['SMDP_CA', { SMDP_CA: undefined }],
  ])('when production lacks or simulates %s, then the boot fails naming it', (name, change) => {
    expect(() => readConfig({ ...production, ...change })).toThrow(new RegExp(name));
  });
});
