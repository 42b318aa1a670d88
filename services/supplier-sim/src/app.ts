import { defineService } from '@esim/service';
import { readConfig } from './config.js';
import { SimulatedSupplier } from './domain/simulatedSupplier.js';
import { TravellerControl } from './domain/travellerControl.js';
import { createSupplierApi } from './http/api.js';
import { Notifier } from './notify/notifier.js';
import { StateFile } from './store/stateFile.js';

/** Bundles remembered at once (each eSIM has one per order); past it the oldest eSIMs are forgotten whole. */
const maxReferences = 100_000;

/**
 * Stands in for the upstream eSIM supplier (contract §8, §13): no database
 * and no NATS. Its eSIMs, bundles, use and unsent notifications live in one
 * JSON file under SUPPLIER_SIM_DATA_DIR, so a restart keeps them. The same
 * port serves the control API that plays the traveller (install, use,
 * expiry) and reports it, signed, to SUPPLIER_NOTIFICATION_URL.
 */
export const supplierSimService = defineService({
  name: 'supplier-sim',
  config: readConfig,
  nats: false,
  async start({ config, logger, own }) {
    const store = await StateFile.open(config.SUPPLIER_SIM_DATA_DIR, maxReferences);
    const supplier = new SimulatedSupplier(store.state, { smdpAddress: config.SUPPLIER_SMDP_ADDRESS, failureRate: config.SUPPLIER_FAILURE_RATE });
    const url = config.SUPPLIER_NOTIFICATION_URL;
    const control = url ? new TravellerControl(store, new Notifier({ url, secret: config.SUPPLIER_CALLBACK_SECRET, logger })) : undefined;
    const api = createSupplierApi({ supplier, store, control, latencyMs: config.SUPPLIER_LATENCY_MS, logger });
    own('state-file', { stop: () => store.persist() });
    return {
      http: [{ name: 'api', listen: () => api.listen(config.PORT, config.HOST), close: () => api.close() }],
      facts: {
        latencyMs: config.SUPPLIER_LATENCY_MS,
        failureRate: config.SUPPLIER_FAILURE_RATE,
        smdpAddress: config.SUPPLIER_SMDP_ADDRESS,
        stateFile: store.path,
        notificationUrl: url ?? null,
      },
    };
  },
});
