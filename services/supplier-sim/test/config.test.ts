// Protects the simulator's configuration: documented defaults, latency 0 allowed, and bad values stop the boot naming the variable.
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';

describe('supplier-sim config', () => {
  it('when nothing is set, then the documented defaults apply', () => {
    expect(readConfig({})).toMatchObject({
      PORT: 8090,
      HEALTH_PORT: 9097,
      SUPPLIER_LATENCY_MS: 300,
      SUPPLIER_FAILURE_RATE: 0,
      SUPPLIER_SMDP_ADDRESS: 'smdp.supplier-sim.local',
    });
  });

  it('when latency is 0 and the failure rate 0.25, then both are taken as given', () => {
    expect(readConfig({ SUPPLIER_LATENCY_MS: '0', SUPPLIER_FAILURE_RATE: '0.25' })).toMatchObject({ SUPPLIER_LATENCY_MS: 0, SUPPLIER_FAILURE_RATE: 0.25 });
  });

  it('when a value is unusable, then the boot fails naming the variable', () => {
    expect(() => readConfig({ SUPPLIER_LATENCY_MS: '-1' })).toThrow(/SUPPLIER_LATENCY_MS/);
    expect(() => readConfig({ SUPPLIER_FAILURE_RATE: '1.5' })).toThrow(/SUPPLIER_FAILURE_RATE/);
    expect(() => readConfig({ SUPPLIER_SMDP_ADDRESS: 'not a host$' })).toThrow(/SUPPLIER_SMDP_ADDRESS/);
    expect(() => readConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  });
});
