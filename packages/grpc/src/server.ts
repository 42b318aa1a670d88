import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { serverCredentials, type TlsFiles } from './tls.js';

export interface GrpcServer {
  server: grpc.Server;
  port: number;
  /** Stops taking calls, lets in-flight ones finish, forces after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * A grpc-js server with the standard grpc.health.v1 service, so Kubernetes
 * and `grpc_health_probe` can ask it directly. `register` adds the domain services.
 */
export async function startGrpcServer(options: {
  port: number;
  host?: string;
  register: (server: grpc.Server) => void;
  maxConnectionAgeMs?: number;
  /** Mutual TLS with the platform CA (every caller must present a certificate); plaintext without. */
  tls?: TlsFiles;
}): Promise<GrpcServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 4 * 1024 * 1024,
    // Clients hold one connection per replica for as long as it lives; ending
    // each after a while (GOAWAY, in-flight calls finish within the grace)
    // makes them re-resolve, so replicas added by a scale-up get calls too.
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? 120_000,
    'grpc.max_connection_age_grace_ms': 30_000,
  });
  const health = new HealthImplementation({ '': 'SERVING' });
  health.addToServer(server);
  options.register(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host ?? '0.0.0.0'}:${options.port}`, serverCredentials(options.tls), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    server,
    port,
    stop: (graceMs = 5_000) =>
      new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
