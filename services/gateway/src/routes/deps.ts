import type { Redis } from 'ioredis';
import type { ServiceClient } from '@esim/grpc';
import type { catalogV1, partnersV1 } from '@esim/proto';
import type { Logger } from '@esim/telemetry';
import type { ApiKeyAuthDeps, Scope } from '../auth/apiKeyAuth.js';
import type { PortalTokens } from '../auth/portalAuth.js';
import type { RateLimit } from '../auth/rateLimits.js';
import type { Config } from '../config.js';

/** What route modules receive: clients of the services and the auth pieces. No business logic lives in the gateway. */
export interface RouteDeps {
  config: Config;
  logger: Logger;
  redis: Redis;
  partners: ServiceClient<typeof partnersV1.PartnersService.method>;
  catalog: ServiceClient<typeof catalogV1.CatalogService.method>;
  tokens: PortalTokens;
  registerLimit: RateLimit;
  loginFailures: RateLimit;
  apiKey: (scope: Scope) => ReturnType<typeof import('../auth/apiKeyAuth.js').requireApiKey>;
  apiKeyDeps: ApiKeyAuthDeps;
}
