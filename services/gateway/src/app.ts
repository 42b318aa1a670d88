import type { FastifyInstance } from 'fastify';
import type { ReadinessCheck } from '@esim/runtime';
import { defineService, type ServiceContext } from '@esim/service';
import { requireOperator } from './auth/operatorAuth.js';
import { requireApiKey, type ApiKeyAuthDeps } from './auth/apiKeyAuth.js';
import { CredentialCache } from './auth/credentialCache.js';
import { startCredentialEvictions } from './auth/credentialEvictions.js';
import { LocalCredentials } from './auth/localCredentials.js';
import { PortalTokens } from './auth/portalAuth.js';
import { RateLimit } from './auth/rateLimits.js';
import { connectBackends } from './backends.js';
import { startCatalogChanges } from './cache/catalogChanges.js';
import { announcingPlanWrites, CatalogVersion } from './cache/catalogVersion.js';
import { RenderedResponses } from './cache/renderedResponses.js';
import { readConfig, type Config } from './config.js';
import { asyncApiDocument } from './http/asyncapi.js';
import { createRedis } from './redis.js';
import { adminComponents, publicComponents } from './http/components.js';
import { createApp } from './http/createApp.js';
import { serveWebApp } from './http/staticApps.js';
import { problems } from './http/schemas.js';
import { adminAuditRoute } from './routes/admin/audit.js';
import { adminDeadLetterRoutes } from './routes/admin/deadLetters.js';
import { adminReconciliationRoutes } from './routes/admin/reconciliation.js';
import { adminEsimRoutes } from './routes/admin/esims.js';
import { adminKeyRoutes } from './routes/admin/keys.js';
import { adminOrderRoutes } from './routes/admin/orders.js';
import { adminOperatorRoutes } from './routes/admin/operators.js';
import { adminPartnerRoutes } from './routes/admin/partners.js';
import { adminPlanRoutes } from './routes/admin/plans.js';
import { adminWalletRoutes } from './routes/admin/wallet.js';
import { adminWebhookDeliveryRoutes } from './routes/admin/webhookDeliveries.js';
import { partnerDoors } from './routes/partnerDoors.js';
import { catalogRoute } from './routes/public/catalog.js';
import { esimRoutes } from './routes/public/esims.js';
import { testEsimRoutes } from './routes/public/testEsims.js';
import { loginRoute } from './routes/public/login.js';
import { accountRoutes } from './routes/public/account.js';
import { LoginThrottle } from './auth/loginThrottle.js';
import { meRoutes } from './routes/public/me.js';
import { testModeRoutes } from './routes/public/testMode.js';
import { orderRoutes } from './routes/public/orders.js';
import { quoteRoute } from './routes/public/quotes.js';
import { orderEsimsCsvRoute } from './routes/public/orderEsimsCsv.js';
import { registerRoute } from './routes/public/register.js';
import { testWalletCreditRoute } from './routes/public/testWalletCredit.js';
import { walletRoutes } from './routes/public/wallet.js';
import { webhookRoutes } from './routes/public/webhooks.js';
import { adminWebhookEndpointRoutes, webhookEndpointRoutes } from './routes/public/webhookEndpoints.js';
import { supplierNotificationRoute } from './routes/supplier/notifications.js';

export interface Gateway {
  publicApp: FastifyInstance;
  adminApp: FastifyInstance;
  /** /readyz answers 503 from now on, so load balancers drain this replica first. */
  markShuttingDown(): void;
}

/**
 * Builds both listeners without binding them: the public partner API under
 * /api/v1 and the admin API under /admin/v1, each with its own OpenAPI
 * document. Tests call this and use `inject`; main.ts listens.
 */
export async function buildGateway({ config, logger, nc, ns: subjects, consume, own, grpcTls }: ServiceContext<Config>): Promise<Gateway> {
  // One Redis or a Redis Cluster (REDIS_CLUSTER_NODES), failing fast either way (redis.ts).
  const redis = createRedis(config);
  redis.on('error', (error) => logger.warn({ err: error }, 'redis error'));
  await redis.connect();
  own('redis', { stop: () => redis.quit() });
  const backends = connectBackends(config, grpcTls());
  own('grpc clients', { stop: () => backends.close() });
  const { partners, catalog, wallet, orders, webhooks } = backends;
  const ns = config.PLATFORM_NAMESPACE;

  const cache = new CredentialCache(redis, ns, partners);
  const credentials = new LocalCredentials(cache);
  own('credential evictions', startCredentialEvictions({ nc, ns: subjects, shared: cache, local: credentials, logger }));
  const apiKeyDeps: ApiKeyAuthDeps = {
    credentials,
    limit: new RateLimit(redis, `${ns}:gateway:rl:key`, config.RATE_LIMIT_PER_KEY),
    testLimit: new RateLimit(redis, `${ns}:gateway:rl:test-key`, config.RATE_LIMIT_PER_TEST_KEY),
    redis,
    namespace: ns,
    partners,
    logger,
  };
  const tokens = new PortalTokens(config.JWT_SECRET, config.JWT_ISSUER);
  const portalToken = tokens.require({ partners, limit: new RateLimit(redis, `${ns}:gateway:rl:portal`, config.RATE_LIMIT_PER_PORTAL) });
  const limitOf = (name: string, window: Config['ACCOUNT_RATE_LIMIT']) => new RateLimit(redis, `${ns}:gateway:rl:${name}`, window);
  const throttle = new LoginThrottle(limitOf('login', config.LOGIN_FAILURE_LIMIT), limitOf('login-address', config.LOGIN_ADDRESS_FAILURE_LIMIT));
  // One budget of test webhooks per partner, whichever route sends them (§3: at most 10 a minute).
  const webhookTestLimit = limitOf('webhook-test', config.WEBHOOK_TEST_LIMIT);
  const doors = partnerDoors({ apiKey: (scope, alongside) => requireApiKey(apiKeyDeps, scope, alongside), portalToken, partners });
  const renderedCatalog = { responses: new RenderedResponses(), version: new CatalogVersion(redis, ns) };
  own('catalog changes', startCatalogChanges({ nc, ns: subjects, responses: renderedCatalog.responses, logger }));
  const allowInsecureWebhookUrls = config.WEBHOOK_ALLOW_INSECURE_URLS;

  // Revocations, suspensions and tier changes evict cached credentials on every replica.
  await consume(
    { durable: 'gateway_credentials', type: 'partners.credentials.changed', ackWaitMs: 10_000, maxDeliver: 50, retry: { firstMs: 500, maxMs: 500 }, exactlyOnce: false },
    async (event) => {
      await cache.evict(event.data.prefixes);
      credentials.evict(event.data.prefixes);
    },
  );

  let shuttingDown = false;
  // Only the gateway's own dependencies: a backend that is down fails its routes with 503, not the whole listener (§1).
  const readiness: ReadinessCheck[] = [
    { name: 'redis', check: () => redis.ping() },
    { name: 'nats', check: () => nc.flush() },
  ];
  const identity = { namespace: ns, bootId: config.BOOT_ID };
  const common = { logger, readiness, identity, isShuttingDown: () => shuttingDown, trustProxy: config.TRUST_PROXY };

  const publicApp = await createApp({
    ...common,
    name: 'public',
    components: publicComponents,
    title: 'Partner API',
    description: 'Wholesale eSIM plans, prepaid orders and wallet for approved partners. Errors are RFC 9457 problem+json; money is integer minor units.',
    securitySchemes: {
      apiKey: { type: 'http', scheme: 'bearer', description: 'API key `sk_live_<prefix>_<secret>`, or a test key `sk_test_<prefix>_<secret>` acting on your test account (§14)' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      portalToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Portal token from POST /partner/login' },
      supplierSignature: {
        type: 'apiKey',
        in: 'header',
        name: 'X-Supplier-Signature',
        description: 'The supplier only: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed with SUPPLIER_CALLBACK_SECRET',
      },
    },
  });
  // The supplier's notifications, at the root (the path a supplier is given, §13), each in a scope of its own
  // (it parses its body itself); the same handler under /api/v1 for a supplier configured with the API's prefix.
  const notifications = { orders, secret: config.SUPPLIER_CALLBACK_SECRET };
  await publicApp.register(async (scope) => supplierNotificationRoute(scope, notifications));
  await publicApp.register(async (scope) => supplierNotificationRoute(scope, { ...notifications, hidden: true }), { prefix: '/api/v1' });
  await publicApp.register(
    async (api) => {
      // Before any route: every portal twin takes ?livemode=false (§14).
      api.addHook('onRoute', doors.onRoute);
      registerRoute(api, { partners, registerLimit: new RateLimit(redis, `${ns}:gateway:rl:register`, config.REGISTER_RATE_LIMIT), allowInsecureWebhookUrls });
      loginRoute(api, { partners, tokens, throttle });
      accountRoutes(api, { partners, verifyLimit: limitOf('verify', config.ACCOUNT_RATE_LIMIT), resetLimit: limitOf('reset', config.ACCOUNT_RATE_LIMIT) });
      meRoutes(api, { partners, portalToken, allowInsecureWebhookUrls, wallet, throttle });
      testModeRoutes(api, { partners, portalToken });
      catalogRoute(api, { catalog, orders, doors, rendered: renderedCatalog });
      walletRoutes(api, { wallet, doors });
      testWalletCreditRoute(api, { wallet, doors });
      orderRoutes(api, { orders, doors, catalogVersion: renderedCatalog.version });
      quoteRoute(api, { orders, doors, catalogVersion: renderedCatalog.version });
      orderEsimsCsvRoute(api, { orders, doors });
      esimRoutes(api, { orders, doors });
      testEsimRoutes(api, { orders, doors });
      webhookRoutes(api, { webhooks, doors, testLimit: webhookTestLimit });
      webhookEndpointRoutes(api, { webhooks, doors, allowInsecureWebhookUrls, testLimit: webhookTestLimit });
    },
    { prefix: '/api/v1' },
  );
  await serveWebApp(publicApp, 'portal');
  // The webhooks partners receive, described for tools as /openapi.json describes the calls they make (#19).
  const webhookEvents = asyncApiDocument();
  publicApp.get('/asyncapi.json', { schema: { hide: true } }, async () => webhookEvents);

  const adminApp = await createApp({
    ...common,
    name: 'admin',
    components: adminComponents,
    title: 'Admin API',
    description: 'Operator API: partner review, keys, plans, wallets, orders, dead letters and the audit log. Every mutating call is audited with the authenticated operator (the optional X-Operator header is kept as a note). Roles: viewer reads; support reviews partners, suspends, manages keys and secrets, retries deliveries and redrives dead letters; finance tops up and adjusts wallets; admin does everything.',
    securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'An operator token `op_<prefix>_<secret>` (its role decides which calls it may make), or the break-glass ADMIN_TOKEN' } },
  });
  await adminApp.register(
    async (admin) => {
      admin.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, security: [{ adminToken: [] }] };
        // Every admin route can answer 403 OPERATOR_ROLE_REQUIRED (§10), so every one documents it.
        const response = route.schema.response as Record<number, unknown> | undefined;
        if (response && !(403 in response)) route.schema.response = { ...response, ...problems(403) };
      });
      // Operator token or ADMIN_TOKEN, then the route's role from the one table (auth/operatorRoles.ts, §10).
      admin.addHook('onRequest', requireOperator({ adminToken: config.ADMIN_TOKEN, partners, logger }));
      adminOperatorRoutes(admin, { partners });
      adminPartnerRoutes(admin, { partners, wallet, allowInsecureWebhookUrls });
      adminKeyRoutes(admin, { partners });
      adminAuditRoute(admin, { partners });
      adminPlanRoutes(admin, { catalog: announcingPlanWrites(catalog, { ...renderedCatalog, logger }) });
      adminWalletRoutes(admin, { partners, wallet });
      adminOrderRoutes(admin, { orders });
      adminEsimRoutes(admin, { orders });
      adminWebhookDeliveryRoutes(admin, { webhooks });
      adminWebhookEndpointRoutes(admin, { webhooks, allowInsecureWebhookUrls });
      adminDeadLetterRoutes(admin, { nc, ns: subjects });
      adminReconciliationRoutes(admin, { orders, nc, ns: subjects });
    },
    { prefix: '/admin/v1' },
  );
  await serveWebApp(adminApp, 'console');

  return { publicApp, adminApp, markShuttingDown: () => void (shuttingDown = true) };
}

/** The partner API and the admin API: authenticates, checks scope, validates, calls one gRPC method, serializes. */
export const gatewayService = defineService({
  name: 'gateway',
  config: readConfig,
  // AUDIT for an operator's dead-letter redrive: the one action the gateway carries out itself.
  publishes: ['AUDIT'],
  async start(context) {
    const { publicApp, adminApp, markShuttingDown } = await buildGateway(context);
    const { config } = context;
    const listener = (name: string, app: FastifyInstance, port: number) => ({
      name,
      listen: async () => {
        await app.listen({ port, host: config.HOST });
        return (app.server.address() as { port: number }).port;
      },
      close: () => app.close(),
    });
    return { http: [listener('public', publicApp, config.PORT), listener('admin', adminApp, config.ADMIN_PORT)], markShuttingDown };
  },
});
