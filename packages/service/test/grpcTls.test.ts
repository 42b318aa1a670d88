// Protects #17's gRPC identity configuration: the three files go together, production has no
// default (a service that serves or calls gRPC stops at boot naming them), and development gets
// the var/pki certificate of its own name.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { grpcTlsFiles, type BaseConfig } from '@esim/service';

const base: BaseConfig = { LOG_LEVEL: 'info', PLATFORM_NAMESPACE: 'esim' };

describe('grpcTlsFiles', () => {
  it('when all three files are set, then those are used as they are', () => {
    expect(grpcTlsFiles({ ...base, NODE_ENV: 'production', GRPC_TLS_CA: '/ca', GRPC_TLS_CERT: '/crt', GRPC_TLS_KEY: '/key' }, 'orders')).toEqual({ ca: '/ca', cert: '/crt', key: '/key' });
  });

  it('when only some are set, then the boot stops naming all three', () => {
    expect(() => grpcTlsFiles({ ...base, GRPC_TLS_CERT: '/crt' }, 'orders')).toThrow('GRPC_TLS_CA, GRPC_TLS_CERT, GRPC_TLS_KEY: set all three or none');
  });

  it('when none is set in production, then the boot stops: there is no development default there', () => {
    expect(() => grpcTlsFiles({ ...base, NODE_ENV: 'production' }, 'orders')).toThrow(/GRPC_TLS_CA, GRPC_TLS_CERT, GRPC_TLS_KEY: required in production \(orders serves or calls gRPC/);
  });

  it('when none is set outside production, then the development certificate names the service and is signed by the development CA', () => {
    const files = grpcTlsFiles({ ...base, NODE_ENV: 'development' }, 'orders');
    const cert = new X509Certificate(readFileSync(files.cert));
    expect(cert.subject).toContain('CN=orders');
    expect(cert.verify(new X509Certificate(readFileSync(files.ca)).publicKey)).toBe(true);
    expect(grpcTlsFiles({ ...base, NODE_ENV: 'test' }, 'orders')).toEqual(files);
  });
});
