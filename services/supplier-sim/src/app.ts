import { defineService } from '@esim/service';
import { readConfig } from './config.js';
import { SimulatedSupplier } from './domain/simulatedSupplier.js';
import { createSupplierApi } from './http/api.js';

/**
 * Stands in for the upstream eSIM supplier (contract §8): no database and no
 * NATS, its issued eSIMs live in memory, so a restart forgets them (a real
 * supplier would not; the platform never relies on it across restarts).
 */
export const supplierSimService = defineService({
  name: 'supplier-sim',
  config: readConfig,
  nats: false,
  async start({ config, logger }) {
    const supplier = new SimulatedSupplier({ smdpAddress: config.SUPPLIER_SMDP_ADDRESS, failureRate: config.SUPPLIER_FAILURE_RATE });
    const api = createSupplierApi({ supplier, latencyMs: config.SUPPLIER_LATENCY_MS, logger });
    return {
      http: [{ name: 'api', listen: () => api.listen(config.PORT, config.HOST), close: () => api.close() }],
      facts: { latencyMs: config.SUPPLIER_LATENCY_MS, failureRate: config.SUPPLIER_FAILURE_RATE, smdpAddress: config.SUPPLIER_SMDP_ADDRESS },
    };
  },
});
