import { createClient, type ServiceClient, type TlsFiles } from '@esim/grpc';
import { catalogV1, ordersV1, partnersV1, walletV1, webhooksV1 } from '@esim/proto';
import type { Config } from './config.js';
import { routedByMode } from './modeRouting.js';

export type PartnersClient = ServiceClient<typeof partnersV1.PartnersService.method>;
export type CatalogClient = ServiceClient<typeof catalogV1.CatalogService.method>;
export type WalletClient = ServiceClient<typeof walletV1.WalletService.method>;
export type OrdersClient = ServiceClient<typeof ordersV1.OrdersService.method>;
export type WebhooksClient = ServiceClient<typeof webhooksV1.WebhooksService.method>;

/** The gateway's gRPC clients: one per backend service, each handed only to the routes that call it. */
export interface Backends {
  partners: PartnersClient;
  catalog: CatalogClient;
  wallet: WalletClient;
  orders: OrdersClient;
  webhooks: WebhooksClient;
}

/**
 * Channels connect lazily and none of them is a readiness dependency: a
 * backend that is down fails its own calls with UNAVAILABLE (503) within the
 * client's deadline, and the rest of the API keeps serving.
 */
export function connectBackends(config: Config, tls: TlsFiles): Backends & { close(): void } {
  const backends: Backends = {
    partners: createClient(partnersV1.PartnersService, config.PARTNERS_ADDR, { tls }),
    catalog: createClient(catalogV1.CatalogService, config.CATALOG_ADDR, { tls }),
    wallet: routedByMode(
      createClient(walletV1.WalletService, config.WALLET_ADDR, { tls }),
      config.WALLET_TEST_ADDR ? createClient(walletV1.WalletService, config.WALLET_TEST_ADDR, { tls }) : undefined,
    ),
    orders: routedByMode(
      createClient(ordersV1.OrdersService, config.ORDERS_ADDR, { tls }),
      config.ORDERS_TEST_ADDR ? createClient(ordersV1.OrdersService, config.ORDERS_TEST_ADDR, { tls }) : undefined,
    ),
    webhooks: routedByMode(
      createClient(webhooksV1.WebhooksService, config.WEBHOOKS_ADDR, { tls }),
      config.WEBHOOKS_TEST_ADDR ? createClient(webhooksV1.WebhooksService, config.WEBHOOKS_TEST_ADDR, { tls }) : undefined,
    ),
  };
  return {
    ...backends,
    close: () => {
      for (const client of Object.values(backends)) client.close();
    },
  };
}
