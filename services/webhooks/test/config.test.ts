// Protects the webhooks configuration (§2): working defaults for local use, the retry schedule parsed from durations, insecure URLs off in production, and a boot that names the bad variable.
import { describe, expect, it } from 'vitest';
import { generateDataKey } from '@esim/crypto';
import { readConfig } from '../src/config.js';

const key = generateDataKey();

describe('webhooks config', () => {
  it('when nothing is set, then the contract defaults apply', () => {
    const config = readConfig({ DATA_ENCRYPTION_KEY: key });
    expect(config).toMatchObject({
      GRPC_PORT: 50055,
      HEALTH_PORT: 9098,
      PARTNERS_ADDR: '127.0.0.1:50051',
      WEBHOOK_RETRY_SCHEDULE: [10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000],
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_ALLOW_INSECURE_URLS: true,
      WEBHOOK_CONCURRENCY: 32,
      WEBHOOK_PARTNER_CONCURRENCY: 4,
      WEBHOOK_POLL_MS: 200,
      WEBHOOK_IDLE_POLL_MS: 5_000,
      WEBHOOK_ENDPOINT_CACHE_MS: 60_000,
    });
  });

  it('when a schedule is given, then it is parsed as durations in order', () => {
    expect(readConfig({ DATA_ENCRYPTION_KEY: key, WEBHOOK_RETRY_SCHEDULE: '100ms,2s,1m,1h,1d,250' }).WEBHOOK_RETRY_SCHEDULE).toEqual([100, 2_000, 60_000, 3_600_000, 86_400_000, 250]);
  });

  it('when NODE_ENV is production, then insecure URLs are off unless explicitly allowed', () => {
    expect(readConfig({ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: key }).WEBHOOK_ALLOW_INSECURE_URLS).toBe(false);
    expect(readConfig({ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: key, WEBHOOK_ALLOW_INSECURE_URLS: 'true' }).WEBHOOK_ALLOW_INSECURE_URLS).toBe(true);
    expect(readConfig({ DATA_ENCRYPTION_KEY: key, WEBHOOK_ALLOW_INSECURE_URLS: 'false' }).WEBHOOK_ALLOW_INSECURE_URLS).toBe(false);
  });

  it.each([
    ['WEBHOOK_RETRY_SCHEDULE', '10s,,1m'],
    ['WEBHOOK_RETRY_SCHEDULE', '10 seconds'],
    ['WEBHOOK_RETRY_SCHEDULE', '0s'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_CONCURRENCY', 'many'],
    ['WEBHOOK_ALLOW_INSECURE_URLS', 'yes'],
    ['PARTNERS_ADDR', 'partners'],
    ['DATA_ENCRYPTION_KEY', 'c2hvcnQ='],
  ])('when %s is %s, then the boot fails naming it', (name, value) => {
    expect(() => readConfig({ DATA_ENCRYPTION_KEY: key, [name]: value })).toThrow(new RegExp(`^Invalid configuration:\\n  ${name}: `));
  });

  it('when the data key is missing in production, then the boot fails rather than generate one', () => {
    expect(() => readConfig({ NODE_ENV: 'production' })).toThrow(/DATA_ENCRYPTION_KEY/);
  });
});
