// Protects the orders service's configuration defaults and bounds, notably that the sweeper can never be set to race requests still paying.
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';

describe('orders config', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    expect(readConfig({})).toMatchObject({
      GRPC_PORT: 50054,
      HEALTH_PORT: 9095,
      CURRENCY: 'USD',
      CATALOG_ADDR: '127.0.0.1:50052',
      WALLET_ADDR: '127.0.0.1:50053',
      ORDERS_SWEEP_INTERVAL_MS: 5_000,
      ORDERS_SWEEP_AFTER_MS: 30_000,
      PROVISIONING_ADDR: '127.0.0.1:50056',
      ORDER_CANCEL_WINDOW: 30 * 86_400_000,
      ORDERS_CANCEL_SWEEP_AFTER_MS: 30_000,
    });
  });

  it('when ORDER_CANCEL_WINDOW is set, then it reads the rate-limit duration syntax', () => {
    expect(readConfig({ ORDER_CANCEL_WINDOW: '12h' }).ORDER_CANCEL_WINDOW).toBe(12 * 3_600_000);
    expect(readConfig({ ORDER_CANCEL_WINDOW: '2s' }).ORDER_CANCEL_WINDOW).toBe(2_000);
  });

  it('when a value is unusable, then the boot fails naming the variable', () => {
    expect(() => readConfig({ ORDERS_SWEEP_AFTER_MS: '999' })).toThrow(/ORDERS_SWEEP_AFTER_MS/);
    expect(() => readConfig({ ORDERS_SWEEP_INTERVAL_MS: 'soon' })).toThrow(/ORDERS_SWEEP_INTERVAL_MS/);
    expect(() => readConfig({ WALLET_ADDR: 'wallet' })).toThrow(/WALLET_ADDR/);
    expect(() => readConfig({ CURRENCY: 'usd' })).toThrow(/CURRENCY/);
    expect(() => readConfig({ ORDER_CANCEL_WINDOW: 'a month' })).toThrow(/ORDER_CANCEL_WINDOW/);
    expect(() => readConfig({ ORDER_CANCEL_WINDOW: '0s' })).toThrow(/ORDER_CANCEL_WINDOW/);
  });
});
