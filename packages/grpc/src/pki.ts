/**
 * The development PKI of internal calls: a platform CA and one certificate
 * per service identity under var/pki, in the layout of a cert-manager Secret
 * (`<identity>/ca.crt`, `tls.crt`, `tls.key`), so development and production
 * read the same three files. Production never calls this: its certificates
 * come from cert-manager or a Secret (docs/deployment.md).
 *
 * Keys come from node:crypto (native, fast); node-forge only writes and
 * signs the X.509 structure, which node:crypto cannot.
 */
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import forge from 'node-forge';

/** A certificate and its private key, PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

/** Where a service's three files are: what GRPC_TLS_CA, GRPC_TLS_CERT and GRPC_TLS_KEY name. */
export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

const dayMs = 86_400_000;
/** Short on purpose: development certificates expire and are re-issued, as production ones are rotated. */
const leafValidityDays = 30;
const caValidityDays = 365;
/** Re-issued when less than this is left, so a running platform never meets the expiry. */
const renewBeforeMs = 2 * dayMs;

function rsaKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  // PKCS#1: what forge reads, and TLS takes it as well.
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  return {
    keyPem,
    forgePrivate: forge.pki.privateKeyFromPem(keyPem),
    forgePublic: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
  };
}

function serial(): string {
  // Positive (leading bit clear) and unique enough for a development CA.
  return `0${randomBytes(15).toString('hex')}`;
}

/** A self-signed CA certificate that can only sign end-entity certificates. */
export function createCa(options: { commonName?: string; validityDays?: number } = {}): KeyPair {
  const keys = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.forgePublic;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + (options.validityDays ?? caValidityDays) * dayMs);
  const subject = [{ name: 'commonName', value: options.commonName ?? 'esim platform development CA' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.forgePrivate, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.keyPem };
}

/**
 * A certificate for one service identity, usable as both TLS server and
 * client: the identity is its common name and first DNS name (what the
 * servers authorize on); `localhost` and 127.0.0.1 let it serve locally.
 * `notBefore`/`notAfter` exist for tests (an expired certificate).
 */
export function issueCertificate(ca: KeyPair, identity: string, options: { notBefore?: Date; notAfter?: Date; dnsNames?: string[] } = {}): KeyPair {
  const keys = rsaKeys();
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const caKey = forge.pki.privateKeyFromPem(ca.key);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.forgePublic;
  cert.serialNumber = serial();
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - 60_000);
  cert.validity.notAfter = options.notAfter ?? new Date(Date.now() + leafValidityDays * dayMs);
  cert.setSubject([{ name: 'commonName', value: identity }]);
  cert.setIssuer(caCert.subject.attributes);
  const dnsNames = [identity, ...(options.dnsNames ?? []), 'localhost'];
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    { name: 'subjectAltName', altNames: [...new Set(dnsNames)].map((value) => ({ type: 2, value })).concat([{ type: 7, ip: '127.0.0.1' } as never]) },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.keyPem };
}

/** `var/` at the repository root (as @esim/config's varDir; this package does not depend on it). */
export const pkiDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../var/pki');

const fresh = (pem: string, caPem?: string) => {
  try {
    const cert = new X509Certificate(pem);
    if (Date.parse(cert.validTo) - Date.now() < renewBeforeMs) return false;
    return caPem === undefined || cert.verify(new X509Certificate(caPem).publicKey);
  } catch {
    return false;
  }
};

/** Writes `files` into a fresh directory, then renames it to `target`: readers never see half of it. The first writer wins. */
function publish(target: string, files: Record<string, string>): void {
  const staging = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(staging, name), content, { mode: 0o600 });
  try {
    renameSync(staging, target);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another process published first: use theirs
  }
}

function replaceStale(target: string, isFresh: () => boolean, files: () => Record<string, string>): void {
  if (existsSync(target) && isFresh()) return;
  if (existsSync(target)) rmSync(target, { recursive: true, force: true });
  publish(target, files());
}

/**
 * The development CA and `identity`'s certificate under `dir` (var/pki by
 * default), issued when missing, about to expire, or signed by another CA.
 * Safe when several processes start together.
 */
export function devTlsFiles(identity: string, dir = pkiDir): TlsFiles {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caDir = join(dir, 'ca');
  replaceStale(caDir, () => fresh(readFileSync(join(caDir, 'ca.crt'), 'utf8')), () => {
    const ca = createCa();
    return { 'ca.crt': ca.cert, 'ca.key': ca.key };
  });
  const ca: KeyPair = { cert: readFileSync(join(caDir, 'ca.crt'), 'utf8'), key: readFileSync(join(caDir, 'ca.key'), 'utf8') };
  const own = join(dir, identity);
  replaceStale(own, () => fresh(readFileSync(join(own, 'tls.crt'), 'utf8'), ca.cert) && readFileSync(join(own, 'ca.crt'), 'utf8') === ca.cert, () => {
    const issued = issueCertificate(ca, identity);
    return { 'ca.crt': ca.cert, 'tls.crt': issued.cert, 'tls.key': issued.key };
  });
  return { ca: join(own, 'ca.crt'), cert: join(own, 'tls.crt'), key: join(own, 'tls.key') };
}
