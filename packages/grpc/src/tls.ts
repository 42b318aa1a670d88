/**
 * Mutual TLS for internal calls. Every server asks for a client certificate
 * signed by the platform CA and refuses the handshake without one (expired,
 * another CA's, or none); every client presents its service's certificate
 * and accepts only a server whose certificate names the service it meant to
 * call. The service identity is the certificate's common name.
 *
 * The three files are watched (grpc-js' FileWatcherCertificateProvider): a
 * certificate cert-manager rotates in a mounted Secret is used for new
 * handshakes within `refreshMs`, with no restart. Channels are long-lived,
 * so a handshake is paid once per connection, not per call.
 */
import type { PeerCertificate } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { TlsFiles } from './pki.js';

export type { TlsFiles };

const defaultRefreshMs = 60_000;
const providers = new Map<string, grpc.experimental.CertificateProvider>();

/** One watcher per set of files in a process, shared by its server and all its channels. */
function providerOf(files: TlsFiles, refreshMs = defaultRefreshMs): grpc.experimental.CertificateProvider {
  const key = `${files.ca}\n${files.cert}\n${files.key}\n${refreshMs}`;
  let provider = providers.get(key);
  if (!provider) {
    provider = new grpc.experimental.FileWatcherCertificateProvider({
      caCertificateFile: files.ca,
      certificateFile: files.cert,
      privateKeyFile: files.key,
      refreshIntervalMs: refreshMs,
    });
    providers.set(key, provider);
  }
  return provider;
}

/** Server side: the platform CA's client certificate is required (`rejectUnauthorized`). */
export function serverCredentials(files: TlsFiles | undefined): grpc.ServerCredentials {
  if (!files) return grpc.ServerCredentials.createInsecure();
  const provider = providerOf(files);
  return grpc.experimental.createCertificateProviderServerCredentials(provider, provider, true);
}

/** The identity a certificate carries: its common name. */
export function identityOf(certificate: Pick<PeerCertificate, 'subject'> | undefined): string | undefined {
  const cn = certificate?.subject?.CN;
  return Array.isArray(cn) ? cn[0] : cn || undefined;
}

/**
 * Client side: present our certificate; trust the platform CA only, and only
 * a server whose certificate names `server` (the service we dial, however
 * it is addressed: 127.0.0.1, a pod IP, a Kubernetes DNS name).
 */
export function channelCredentials(files: TlsFiles | undefined, server: string | undefined): grpc.ChannelCredentials {
  if (!files) return grpc.credentials.createInsecure();
  const provider = providerOf(files);
  return grpc.experimental.createCertificateProviderChannelCredentials(provider, provider, {
    checkServerIdentity: (_host, certificate) => {
      const identity = identityOf(certificate);
      return server === undefined || identity === server
        ? undefined
        : new Error(`the server presented the certificate of "${identity ?? 'nobody'}", not of ${server}`);
    },
  });
}

/** The calling service, from the client certificate of an authorized TLS connection; undefined on a plaintext one. */
export function callerOf(call: { getAuthContext(): { sslPeerCertificate?: PeerCertificate } | null }): string | undefined {
  return identityOf(call.getAuthContext()?.sslPeerCertificate);
}
