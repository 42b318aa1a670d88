import type { ServiceClient } from '@esim/grpc';
import type { catalogV1, partnersV1 } from '@esim/proto';
import type { Logger } from '@esim/telemetry';
import type { requireApiKey, Scope } from '../auth/apiKeyAuth.js';
import type { PortalTokens } from '../auth/portalAuth.js';
import type { RateLimit } from '../auth/rateLimits.js';
import type { Config } from '../config.js';

/** What route modules receive: clients of the services and the auth pieces. No business logic lives in the gateway. */
export interface RouteDeps {
  config: Config;
  logger: Logger;
  partners: ServiceClient<typeof partnersV1.PartnersService.method>;
  catalog: ServiceClient<typeof catalogV1.CatalogService.method>;
  tokens: PortalTokens;
  registerLimit: RateLimit;
  loginFailures: RateLimit;
  apiKey: (scope: Scope) => ReturnType<typeof requireApiKey>;
}
