import { ConfigError } from '@esim/config';
import { devTlsFiles, type TlsFiles } from '@esim/grpc';
import type { BaseConfig } from './env.js';

/**
 * The files of this service's gRPC identity (mutual TLS, docs/security.md
 * "Internal calls"): GRPC_TLS_CA, GRPC_TLS_CERT and GRPC_TLS_KEY when set
 * (production: a cert-manager Secret); outside production, the development
 * PKI under var/pki, issued on first use. Production has no default: a
 * service that serves or calls gRPC without them fails its boot.
 */
export function grpcTlsFiles(config: BaseConfig, identity: string): TlsFiles {
  const { GRPC_TLS_CA: ca, GRPC_TLS_CERT: cert, GRPC_TLS_KEY: key } = config;
  if (ca && cert && key) return { ca, cert, key };
  if (ca || cert || key) throw new ConfigError('Invalid configuration:\n  GRPC_TLS_CA, GRPC_TLS_CERT, GRPC_TLS_KEY: set all three or none');
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(
      `Invalid configuration:\n  GRPC_TLS_CA, GRPC_TLS_CERT, GRPC_TLS_KEY: required in production (${identity} serves or calls gRPC; mount its certificate, docs/deployment.md)`,
    );
  }
  return devTlsFiles(identity);
}
