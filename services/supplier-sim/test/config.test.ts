// Protects the simulator's configuration: documented defaults, latency 0 allowed, the callback secret required in production only, and bad values stop the boot naming the variable.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { varDir } from '@esim/config';
import { readConfig } from '../src/config.js';

const secret = { SUPPLIER_CALLBACK_SECRET: 'a-callback-secret-of-some-length' };

describe('supplier-sim config', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    const config = readConfig({ ...secret });
    expect(config).toMatchObject({
      PORT: 8090,
      HEALTH_PORT: 9097,
      SUPPLIER_LATENCY_MS: 300,
      SUPPLIER_FAILURE_RATE: 0,
      SUPPLIER_SMDP_ADDRESS: 'smdp.supplier-sim.local',
      SUPPLIER_SIM_DATA_DIR: join(varDir, 'supplier-sim'),
    });
    expect(config.SUPPLIER_NOTIFICATION_URL).toBeUndefined();
  });

  it('when latency is 0 and the failure rate 0.25, then both are taken as given', () => {
    expect(readConfig({ ...secret, SUPPLIER_LATENCY_MS: '0', SUPPLIER_FAILURE_RATE: '0.25' })).toMatchObject({ SUPPLIER_LATENCY_MS: 0, SUPPLIER_FAILURE_RATE: 0.25 });
  });

  it('when the notification URL is set, then it is taken; empty means unset', () => {
    const url = 'http://127.0.0.1:8080/supplier/v1/notifications';
    expect(readConfig({ ...secret, SUPPLIER_NOTIFICATION_URL: url }).SUPPLIER_NOTIFICATION_URL).toBe(url);
    expect(readConfig({ ...secret, SUPPLIER_NOTIFICATION_URL: '' }).SUPPLIER_NOTIFICATION_URL).toBeUndefined();
  });

  it('when the callback secret is missing outside production, then the shared development secret is used; in production the boot fails naming it', () => {
    const development = readConfig({ NODE_ENV: 'development' }).SUPPLIER_CALLBACK_SECRET;
    expect(development.length).toBeGreaterThanOrEqual(16);
    expect(readConfig({ NODE_ENV: 'test' }).SUPPLIER_CALLBACK_SECRET).toBe(development);
    expect(() => readConfig({ NODE_ENV: 'production' })).toThrow(/SUPPLIER_CALLBACK_SECRET/);
    expect(readConfig({ NODE_ENV: 'production', ...secret }).SUPPLIER_CALLBACK_SECRET).toBe(secret.SUPPLIER_CALLBACK_SECRET);
  });

  it('when a value is unusable, then the boot fails naming the variable', () => {
    expect(() => readConfig({ ...secret, SUPPLIER_LATENCY_MS: '-1' })).toThrow(/SUPPLIER_LATENCY_MS/);
    expect(() => readConfig({ ...secret, SUPPLIER_FAILURE_RATE: '1.5' })).toThrow(/SUPPLIER_FAILURE_RATE/);
    expect(() => readConfig({ ...secret, SUPPLIER_SMDP_ADDRESS: 'not a host$' })).toThrow(/SUPPLIER_SMDP_ADDRESS/);
    expect(() => readConfig({ ...secret, PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => readConfig({ ...secret, SUPPLIER_NOTIFICATION_URL: 'ftp://example.com/x' })).toThrow(/SUPPLIER_NOTIFICATION_URL/);
    expect(() => readConfig({ SUPPLIER_CALLBACK_SECRET: 'short' })).toThrow(/SUPPLIER_CALLBACK_SECRET/);
    expect(() => readConfig({ ...secret, SUPPLIER_SIM_DATA_DIR: '' })).toThrow(/SUPPLIER_SIM_DATA_DIR/);
  });
});
