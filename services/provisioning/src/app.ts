import { fileURLToPath } from 'node:url';
import { provisioningV1 } from '@esim/proto';
import { defineService, grpcBinding } from '@esim/service';
import { readConfig } from './config.js';
import { provisionOrder } from './domain/provisionOrder.js';
import { retryPolicy } from './domain/retryPolicy.js';
import { provisioningHandlers } from './grpc/handlers.js';
import { createSupplierClient } from './supplier/supplierClient.js';

/**
 * Turns each paid order into an eSIM (or, for a top-up, a bundle on one)
 * from the supplier and publishes the outcome; answers RevokeBundle for the
 * orders service's cancellations and GetProvisioning for its sweeper of
 * orders left processing. Every supplier call is made here. Readiness has no supplier check: a supplier outage must not take
 * the worker out of service; its calls fail and are retried instead.
 */
export const provisioningService = defineService({
  name: 'provisioning',
  config: readConfig,
  // Each in-flight supplier call holds one connection (the handler's transaction), plus a few spare (PROVISIONING_CONCURRENCY is at most 12).
  postgres: { schema: 'provisioning', migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)), poolSize: 16 },
  publishes: ['PROVISIONING'],
  async start({ config, logger, pool, schema, consume }) {
    const policy = retryPolicy({
      windowMs: config.PROVISIONING_RETRY_WINDOW_MS,
      baseMs: config.PROVISIONING_RETRY_BASE_MS,
      maxMs: config.PROVISIONING_RETRY_MAX_MS,
      supplierTimeoutMs: config.SUPPLIER_TIMEOUT_MS,
    });
    const supplier = createSupplierClient({ baseUrl: config.SUPPLIER_URL, timeoutMs: config.SUPPLIER_TIMEOUT_MS });
    await consume(
      { durable: 'provisioning_order_paid', type: 'orders.order.paid', ackWaitMs: policy.ackWaitMs, maxDeliver: policy.maxDeliver, retry: policy.retry, concurrency: config.PROVISIONING_CONCURRENCY },
      provisionOrder({ supplier, pool, schema, retryWindowMs: policy.windowMs, logger }),
    );
    // The origin only: a URL may carry credentials.
    return {
      grpc: [grpcBinding(provisioningV1.ProvisioningService, provisioningHandlers({ supplier, pool, logger }))],
      facts: { supplier: new URL(config.SUPPLIER_URL).origin, retryWindowMs: policy.windowMs, maxDeliver: policy.maxDeliver },
    };
  },
});
