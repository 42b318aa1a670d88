import { readFileSync } from 'node:fs';
import { defineService, type HttpListener } from '@esim/service';
import { readConfig } from './config.js';
import { SimulatedSmdp } from './domain/simulatedSmdp.js';
import { SimulatedSupplier } from './domain/simulatedSupplier.js';
import { TravellerControl } from './domain/travellerControl.js';
import { createSupplierApi } from './http/api.js';
import { Es2Notifier, sender } from './notify/es2Notifier.js';
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
    const smdp = new SimulatedSmdp(store.state, config.SUPPLIER_SMDP_ADDRESS);
    const tls =
      config.SUPPLIER_SIM_TLS_CERT && config.SUPPLIER_SIM_TLS_KEY && config.SUPPLIER_SIM_TLS_CA
        ? { cert: readFileSync(config.SUPPLIER_SIM_TLS_CERT, 'utf8'), key: readFileSync(config.SUPPLIER_SIM_TLS_KEY, 'utf8'), ca: readFileSync(config.SUPPLIER_SIM_TLS_CA, 'utf8') }
        : undefined;
    const url = config.SUPPLIER_NOTIFICATION_URL;
    const es2 = config.SMDP_NOTIFY_URL ? new Es2Notifier({ url: config.SMDP_NOTIFY_URL, requesterId: config.SMDP_SIM_REQUESTER_ID, tls, logger }) : undefined;
    const control = url ? new TravellerControl(store, sender(new Notifier({ url, secret: config.SUPPLIER_CALLBACK_SECRET, logger }), es2)) : undefined;
    const api = createSupplierApi({ supplier, smdp, failsAtRandom: () => supplier.failsAtRandom(), store, control, latencyMs: config.SUPPLIER_LATENCY_MS, logger });
    own('state-file', { stop: () => store.persist() });
    const http: HttpListener[] = [{ name: 'api', listen: () => api.listen(config.PORT, config.HOST), close: () => api.close() }];
    // The TLS listener shares the server set with the plain one: api.close() stops both.
    if (tls) http.push({ name: 'es2-tls', listen: () => api.listenTls(config.SUPPLIER_SIM_TLS_PORT, config.HOST, tls), close: async () => {} });
    return {
      http,
      facts: {
        latencyMs: config.SUPPLIER_LATENCY_MS,
        failureRate: config.SUPPLIER_FAILURE_RATE,
        smdpAddress: config.SUPPLIER_SMDP_ADDRESS,
        stateFile: store.path,
        notificationUrl: url ?? null,
        smdpNotifyUrl: config.SMDP_NOTIFY_URL ?? null,
        es2Tls: tls !== undefined,
      },
    };
  },
});
