import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createJsonSchemaTransform, createJsonSchemaTransformObject, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { AppError, problemBody } from '@esim/errors';
import { newId } from '@esim/ids';
import { identityHeaders, runReadiness, type ProcessIdentity, type ReadinessCheck } from '@esim/runtime';
import { metrics, serveMetrics, type Logger } from '@esim/telemetry';
import { apiHeaders } from './apiHeaders.js';
import { documentEdgeProblems, problemMediaTypes } from './edgeProblems.js';
import { refuseNulInBody, refuseNulInUrl } from './nulCharacters.js';
import { answerClientError, answerFrameworkError } from './frameworkAnswers.js';
import { overrideJsonSchema } from './jsonSchema.js';
import { completeDocument, completeRoutes } from './openapiDocument.js';
import { sendProblem, toAppError } from './problems.js';
import { serveProblemsPage } from './problemsPage.js';
import { traceRequests } from './serverSpans.js';

type OpenApiDocument = Parameters<typeof problemMediaTypes>[0];

const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/;
const bodyLimitBytes = 16 * 1024;

const requestDuration = metrics
  .getMeter('gateway')
  .createHistogram('http_server_request_duration_ms', { unit: 'ms', description: 'HTTP request duration by listener, route, method and status' });

export interface ListenerOptions {
  name: 'public' | 'admin';
  logger: Logger;
  title: string;
  description: string;
  readiness: ReadinessCheck[];
  /** Sent as /readyz headers, so the launcher knows the answer comes from this process (namespace, BOOT_ID). */
  identity?: ProcessIdentity;
  isShuttingDown: () => boolean;
  securitySchemes: Record<string, unknown>;
  /** Named components of this listener's OpenAPI document. */
  components: z.core.$ZodRegistry<{ id: string }>;
  /** fastify's trustProxy (TRUST_PROXY): whose X-Forwarded-For sets `request.ip`. */
  trustProxy?: boolean | number | string[];
}

/** Kubelet probes and Prometheus scrapes: one line each at debug, so info logs hold only real traffic. */
const probePaths = new Set(['/healthz', '/readyz', '/metrics']);

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Its one-line log at debug rather than info: a refusal this replica has
     * already logged in the key's window (auth/localDenials.ts). A flood past
     * a limit would otherwise write a line per refused request, a sixth of
     * the gateway's CPU on such a flood; the request metric still counts each.
     */
    logQuietly: boolean;
  }
}

const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/**
 * A fastify instance with everything both listeners share: request ids,
 * problem+json for every error, the JSON body rules of §3, probes, metrics
 * and an OpenAPI document generated from the routes' zod schemas.
 */
export async function createApp(options: ListenerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger.child({ listener: options.name }) as FastifyBaseLogger,
    bodyLimit: bodyLimitBytes,
    // A hop count trusts that many proxies nearest to us (proxy-addr's rule, which fastify's types only take as a function).
    trustProxy: typeof options.trustProxy === 'number' ? trustHops(options.trustProxy) : (options.trustProxy ?? false),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && saneRequestId.test(given) ? given : newId('req');
    },
    // We log one line per request ourselves (onResponse), with the route and status.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    // Long ids still reach their route, which answers its own 404 (ORDER_NOT_FOUND), not a generic one.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1_000 },
    // What the router or Node's HTTP parser rejects before any route runs is problem+json too (§3).
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  // Per-request state set by the auth hooks, declared up front so every request has the same shape.
  // (auth/* types the first two; the dependency-list overload takes null whatever their declared type.)
  app.decorateRequest('principal', null, []);
  app.decorateRequest('portalPartnerId', null, []);
  app.decorateRequest('account', null, []);
  app.decorateRequest('logQuietly', false);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // JSON only (§3): fastify's built-in text/plain parser would hand a route a string, which then fails
  // validation (400) instead of answering 415 for the wrong media type.
  app.removeContentTypeParser('text/plain');
  // An empty body on a JSON endpoint is "no body" (POST …/approve), not malformed JSON.
  const defaultJsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined);
    defaultJsonParser(request, body as string, (error, parsed) => {
      if (error) return done(error, undefined);
      const nul = refuseNulInBody(body as string, parsed);
      return nul ? done(nul, undefined) : done(null, parsed);
    });
  });

  // First, so that every later hook and the handler run in the request's trace context.
  traceRequests(app);
  // Callback-style hooks: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).headers(apiHeaders);
    done(refuseNulInUrl(request.url));
  });
  app.addHook('onResponse', (request, reply, done) => {
    requestDuration.record(reply.elapsedTime, {
      listener: options.name,
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      status: reply.statusCode,
    });
    const level = request.logQuietly || probePaths.has(request.routeOptions.url ?? '') ? 'debug' : 'info';
    request.log[level]({ method: request.method, route: request.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });
  // Before any route is added: every operation documents what the HTTP layer can answer on it.
  app.addHook('onRoute', documentEdgeProblems);
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.code === 'INTERNAL') request.log.error({ err: error }, 'unhandled error');
    return sendProblem(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(request, reply, new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`)));

  const transformComponents = createJsonSchemaTransformObject({ schemaRegistry: options.components, zodToJsonConfig: { override: overrideJsonSchema as never } });
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, description: options.description, version: '1.0.0' },
      components: { securitySchemes: options.securitySchemes as never },
    },
    transform: completeRoutes(
      createJsonSchemaTransform({ schemaRegistry: options.components, zodToJsonConfig: { override: overrideJsonSchema as never } }),
    ),
    // The toolkit's completion (ids, examples, links to the error table) first, then problems as problem+json.
    transformObject: (document) =>
      problemMediaTypes(
        completeDocument(transformComponents(document), { listener: options.name, problemsPage: '/problems' }) as OpenApiDocument,
      ),
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const { ready, checks } = await runReadiness(options.readiness);
    reply.headers(identityHeaders(options.identity));
    if (ready && !options.isShuttingDown()) return { status: 'ready', checks };
    const detail = options.isShuttingDown() ? 'Shutting down.' : 'A dependency is unreachable.';
    return reply
      .code(503)
      .type('application/problem+json')
      .send({ ...problemBody(new AppError('UNAVAILABLE', detail), request.id), checks });
  });
  app.get('/metrics', { schema: { hide: true } }, (request, reply) => {
    reply.hijack();
    // Hijacked: fastify sends none of the headers set so far, so the request id goes on the raw response.
    reply.raw.setHeader('x-request-id', request.id);
    serveMetrics(request.raw, reply.raw);
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  serveProblemsPage(app);
  return app;
}
