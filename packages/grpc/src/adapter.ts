import * as grpc from '@grpc/grpc-js';
import { create, fromBinary, toBinary, type DescMessage, type DescMethod, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { context, metrics, type Attributes } from '@opentelemetry/api';
import { grpcHosts, type AccessPolicy } from './access.js';
import { fromServiceError, toStatus } from './errors.js';
import { callerOf, channelCredentials, type TlsFiles } from './tls.js';
import { endCall, serverCallContext, startClientCall, tracedMethod } from './tracing.js';

/**
 * protobuf-es generates descriptors, not grpc-js definitions. These few
 * functions turn any generated service into a grpc-js server or client, so no
 * method is wired by hand. Only unary methods are supported: we have no other.
 */

export interface CallContext {
  metadata: grpc.Metadata;
  /**
   * When the caller stops waiting (its gRPC deadline), in epoch milliseconds;
   * Infinity when it set none. Work this call causes downstream is bounded by
   * it (pass it on as `deadline`, a statement_timeout, a fetch signal): one
   * deadline, not budgets added up by hand.
   */
  deadline: number;
}

export type ServiceHandlers<M extends GenServiceMethods> = {
  [K in keyof M]: (request: MessageShape<M[K]['input']>, context: CallContext) => Promise<MessageInitShape<M[K]['output']>>;
};

export interface CallOptions {
  deadlineMs?: number;
  /**
   * An absolute deadline (epoch ms) this call must not outlive: the caller's
   * own (CallContext.deadline, a request's). The call's deadline is the
   * earlier of the two.
   */
  deadline?: number;
}

/** Kept of a caller's deadline for an answer to travel back up: the work below ends this much before it. */
export const answerMarginMs = 250;

/**
 * The deadline to hand a downstream call made on behalf of a caller whose
 * own deadline is `deadline` (epoch ms; undefined or Infinity: none): that
 * deadline less the answer's margin, so the caller hears the outcome rather
 * than a timeout of its own.
 */
export function downstreamDeadline(deadline: number | undefined): number | undefined {
  return deadline === undefined || !Number.isFinite(deadline) ? undefined : deadline - answerMarginMs;
}

/** Of a call's deadline, what is left now, in milliseconds (Infinity without one). */
export function remainingMs(deadline: number): number {
  return deadline - Date.now();
}

export type ServiceClient<M extends GenServiceMethods> = {
  [K in keyof M]: (request: MessageInitShape<M[K]['input']>, options?: CallOptions) => Promise<MessageShape<M[K]['output']>>;
} & {
  /** Resolves once the channel is connected; readiness probes use it. */
  ready(deadlineMs?: number): Promise<void>;
  close(): void;
};

const defaultDeadlineMs = 5_000;

function serializer(method: DescMethod, side: 'input' | 'output') {
  const schema = method[side];
  return {
    serialize: (message: object) => Buffer.from(toBinary(schema, create(schema, message as never))),
    deserialize: (bytes: Buffer) => fromBinary(schema, bytes),
  };
}

function definitionOf(service: GenService<GenServiceMethods>): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of service.methods) {
    if (method.methodKind !== 'unary') throw new Error(`${service.typeName}.${method.name}: only unary methods are supported`);
    const input = serializer(method, 'input');
    const output = serializer(method, 'output');
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      originalName: method.localName,
      requestStream: false,
      responseStream: false,
      requestSerialize: input.serialize,
      requestDeserialize: input.deserialize,
      responseSerialize: output.serialize,
      responseDeserialize: output.deserialize,
    };
  }
  return definition as grpc.ServiceDefinition;
}

const serverDuration = metrics
  .getMeter('@esim/grpc')
  .createHistogram('rpc.server.duration', { unit: 'ms', description: 'gRPC server call duration by method and status' });

/** A method's `rpc.server.duration` attributes for each status code, built once: nothing is allocated per call. */
function durationAttributesOf(name: string): Attributes[] {
  const byCode: Attributes[] = [];
  for (const code of Object.values(grpc.status)) if (typeof code === 'number') byCode[code] = { 'rpc.method': name, 'rpc.grpc.status_code': code };
  return byCode;
}

/**
 * Registers `handlers` for `service`; a thrown AppError becomes its status,
 * anything else INTERNAL (and is reported). With `access`, a call whose
 * caller (its client certificate's identity) may not call the method is
 * refused PERMISSION_DENIED before the handler runs.
 */
export function addService<M extends GenServiceMethods>(
  server: grpc.Server,
  service: GenService<M>,
  handlers: ServiceHandlers<M>,
  onInternalError: (error: unknown, method: string) => void,
  access?: AccessPolicy,
): void {
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const handler = handlers[method.localName as keyof M];
    const name = `${service.typeName}/${method.name}`;
    const traced = tracedMethod(service.typeName, method.name);
    const durationAttributes = durationAttributesOf(name);
    implementation[method.localName] = (call: grpc.ServerUnaryCall<MessageShape<DescMessage>, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const startedAt = performance.now();
      const server = serverCallContext(traced, call.metadata);
      const done = (code: grpc.status) => {
        serverDuration.record(performance.now() - startedAt, durationAttributes[code] ?? { 'rpc.method': name, 'rpc.grpc.status_code': code });
        endCall(server.span, code);
      };
      // The handler, its logs and its calls run in the call's trace (and so does the reporting of its failure).
      context.with(server.context, () => {
        if (access) {
          const caller = callerOf(call);
          if (!access(caller, `/${name}`)) {
            done(grpc.status.PERMISSION_DENIED);
            // INTERNAL for the client: a service refused by another is the platform's fault, never the end user's (no 403 to a partner).
            const metadata = toStatus(new Error('refused')).metadata;
            callback({ code: grpc.status.PERMISSION_DENIED, details: `${caller ?? 'an unauthenticated caller'} may not call ${name}`, metadata });
            return;
          }
        }
        const callerDeadline = call.getDeadline();
        const deadline = callerDeadline instanceof Date ? callerDeadline.getTime() : callerDeadline;
        handler(call.request as never, { metadata: call.metadata, deadline: Number.isFinite(deadline) ? deadline : Infinity }).then(
          (response) => {
            done(grpc.status.OK);
            callback(null, response);
          },
          (error: unknown) => {
            const status = toStatus(error);
            if (status.code === grpc.status.INTERNAL) onInternalError(error, name);
            done(status.code ?? grpc.status.UNKNOWN);
            callback(status);
          },
        );
      });
    };
  }
  server.addService(definitionOf(service as GenService<GenServiceMethods>), implementation);
}

/**
 * `catalog:50052` → `dns:///catalog:50052`: grpc-js then resolves every
 * address behind the name (a headless Service's pod IPs) rather than one.
 * A target that already names its resolver (`dns:`, `ipv4:`, `unix:`) is kept.
 */
export function channelTarget(address: string): string {
  return /^[a-z][a-z0-9+.-]*:(?!\d+$)/i.test(address) ? address : `dns:///${address}`;
}

/** Calls go round-robin over every resolved address, not all to the first one (grpc-js' default, pick_first). */
const serviceConfig = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

export interface ClientOptions {
  /** This service's certificate, key and the platform CA (mutual TLS); plaintext without. */
  tls?: TlsFiles;
  /** The identity the server's certificate must carry; by default the service that hosts `service` (access.ts). */
  server?: string;
}

/**
 * A promise-returning client; failures reject with the AppError the server
 * raised. Balances per call across every address the target resolves to;
 * servers end connections after a maximum age (server.ts), so a client
 * re-resolves and finds replicas added since it connected.
 */
export function createClient<M extends GenServiceMethods>(service: GenService<M>, address: string, options: ClientOptions = {}): ServiceClient<M> {
  const Constructor = grpc.makeGenericClientConstructor(definitionOf(service as GenService<GenServiceMethods>), service.name);
  const server = options.server ?? grpcHosts[service.typeName];
  const credentials = channelCredentials(options.tls, server);
  const raw = new Constructor(channelTarget(address), credentials, {
    // The TLS server name is the service's identity, not the address (an IP there is deprecated by RFC 6066; the certificate check is ours).
    ...(options.tls && server ? { 'grpc.ssl_target_name_override': server } : {}),
    'grpc.service_config': serviceConfig,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.enable_retries': 1,
    // A restarted backend is found again within about a second, not after grpc-js' default backoff of up to 2 min.
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 2_000,
  }) as unknown as Record<string, Function> & grpc.Client;
  const client: Record<string, unknown> = {
    close: () => raw.close(),
    ready: (deadlineMs = 1_000) =>
      new Promise<void>((resolve, reject) => raw.waitForReady(Date.now() + deadlineMs, (error) => (error ? reject(error) : resolve()))),
  };
  for (const method of service.methods) {
    const traced = tracedMethod(service.typeName, method.name);
    client[method.localName] = (request: object, options?: CallOptions) =>
      new Promise((resolve, reject) => {
        const deadline = new Date(Math.min(Date.now() + (options?.deadlineMs ?? defaultDeadlineMs), options?.deadline ?? Infinity));
        const call = startClientCall(traced);
        raw[method.localName]!.call(raw, request, call.metadata, { deadline }, (error: grpc.ServiceError | null, response: unknown) => {
          if (error) {
            endCall(call.span, error.code, error.details);
            reject(fromServiceError(error));
          } else {
            endCall(call.span, grpc.status.OK);
            resolve(response);
          }
        });
      });
  }
  return client as ServiceClient<M>;
}
