import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { connectNats, namespace, startConsumer, type NatsConnection, type RunningConsumer } from '@esim/events';
import { createClient } from '@esim/grpc';
import { catalogV1, partnersV1 } from '@esim/proto';
import type { ReadinessCheck, ShutdownStep } from '@esim/runtime';
import type { Logger } from '@esim/telemetry';
import { requireAdminToken } from './auth/adminAuth.js';
import { requireApiKey, type ApiKeyAuthDeps } from './auth/apiKeyAuth.js';
import { CredentialCache } from './auth/credentialCache.js';
import { PortalTokens } from './auth/portalAuth.js';
import { RateLimit } from './auth/rateLimits.js';
import type { Config } from './config.js';
import { adminComponents, publicComponents } from './http/components.js';
import { createApp } from './http/createApp.js';
import { adminAuditRoute } from './routes/admin/audit.js';
import { adminKeyRoutes } from './routes/admin/keys.js';
import { adminPartnerRoutes } from './routes/admin/partners.js';
import { adminPlanRoutes } from './routes/admin/plans.js';
import type { RouteDeps } from './routes/deps.js';
import { catalogRoute } from './routes/public/catalog.js';
import { loginRoute } from './routes/public/login.js';
import { meRoutes } from './routes/public/me.js';
import { registerRoute } from './routes/public/register.js';

export interface Gateway {
  publicApp: FastifyInstance;
  adminApp: FastifyInstance;
  shutdownSteps: ShutdownStep[];
}

/**
 * Builds both listeners without binding them: the public partner API under
 * /api/v1 and the admin API under /admin/v1, each with its own OpenAPI
 * document. Tests call this and use `inject`; main.ts listens.
 */
export async function buildGateway(config: Config, logger: Logger): Promise<Gateway> {
  // Fail fast rather than queue: a request should get 503 while Redis is down, not hang.
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  redis.on('error', (error) => logger.warn({ err: error }, 'redis error'));
  await redis.connect();
  const partners = createClient(partnersV1.PartnersService, config.PARTNERS_ADDR);
  const catalog = createClient(catalogV1.CatalogService, config.CATALOG_ADDR);
  const nc: NatsConnection = await connectNats(config.NATS_URL, 'gateway');
  const ns = config.PLATFORM_NAMESPACE;

  const cache = new CredentialCache(redis, ns, partners);
  const apiKeyDeps: ApiKeyAuthDeps = {
    cache,
    limit: new RateLimit(redis, `${ns}:gateway:rl:key`, config.RATE_LIMIT_PER_KEY),
    redis,
    namespace: ns,
    partners,
    logger,
  };
  const deps: RouteDeps = {
    config,
    logger,
    partners,
    catalog,
    tokens: new PortalTokens(config.JWT_SECRET, config.JWT_ISSUER),
    registerLimit: new RateLimit(redis, `${ns}:gateway:rl:register`, config.REGISTER_RATE_LIMIT),
    loginFailures: new RateLimit(redis, `${ns}:gateway:rl:login`, config.LOGIN_FAILURE_LIMIT),
    apiKey: (scope) => requireApiKey(apiKeyDeps, scope),
  };

  // Revocations, suspensions and tier changes evict cached credentials on every replica.
  const evictions: RunningConsumer = await startConsumer({
    nc,
    ns: namespace(ns),
    logger,
    spec: { durable: 'gateway_credentials', type: 'partners.credentials.changed', ackWaitMs: 10_000, maxDeliver: 50, retryDelayMs: () => 500 },
    handle: (event) => cache.evict(event.data.prefixes),
  });

  let shuttingDown = false;
  const readiness: ReadinessCheck[] = [
    { name: 'redis', check: () => redis.ping() },
    { name: 'nats', check: () => nc.flush() },
    { name: 'partners', check: () => partners.ready() },
    { name: 'catalog', check: () => catalog.ready() },
  ];
  const common = { logger, readiness, isShuttingDown: () => shuttingDown };

  const publicApp = await createApp({
    ...common,
    name: 'public',
    components: publicComponents,
    title: 'Partner API',
    description: 'Wholesale eSIM plans, prepaid orders and wallet for approved partners. Errors are RFC 9457 problem+json; money is integer minor units.',
    securitySchemes: {
      apiKey: { type: 'http', scheme: 'bearer', description: 'API key `sk_live_<prefix>_<secret>`' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      portalToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Portal token from POST /partner/login' },
    },
  });
  await publicApp.register(
    async (api) => {
      registerRoute(api, deps);
      loginRoute(api, deps);
      meRoutes(api, deps);
      catalogRoute(api, deps);
    },
    { prefix: '/api/v1' },
  );

  const adminApp = await createApp({
    ...common,
    name: 'admin',
    components: adminComponents,
    title: 'Admin API',
    description: 'Operator API: partner review, keys, plans and the audit log. Every mutating call is audited with the optional X-Operator header.',
    securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' } },
  });
  await adminApp.register(
    async (admin) => {
      admin.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, security: [{ adminToken: [] }] };
      });
      admin.addHook('onRequest', requireAdminToken(config.ADMIN_TOKEN));
      adminPartnerRoutes(admin, deps);
      adminKeyRoutes(admin, deps);
      adminAuditRoute(admin, deps);
      adminPlanRoutes(admin, deps);
    },
    { prefix: '/admin/v1' },
  );

  return {
    publicApp,
    adminApp,
    shutdownSteps: [
      { name: 'readiness', run: () => void (shuttingDown = true) },
      { name: 'public listener', run: () => publicApp.close() },
      { name: 'admin listener', run: () => adminApp.close() },
      { name: 'credential evictions', run: () => evictions.stop() },
      { name: 'nats', run: () => nc.drain() },
      { name: 'grpc clients', run: () => (partners.close(), catalog.close()) },
      { name: 'redis', run: () => redis.quit() },
    ],
  };
}
