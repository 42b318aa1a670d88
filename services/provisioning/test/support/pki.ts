import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A leaf certificate and its key, as files and as PEM text. */
export interface Leaf {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

export interface TestPki {
  caFile: string;
  ca: string;
  /** The SM-DP+'s identity (the simulator's TLS listener and its callbacks). */
  smdp: Leaf;
  /** The operator's identity (provisioning's ES2+ client and its notification listener). */
  operator: Leaf;
  /** A client under another CA: authenticated by nobody here. */
  rogue: Leaf;
  cleanup(): void;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: 'pipe' });
const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function ca(dir: string, name: string): void {
  openssl(['req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
}

/** A leaf for localhost and 127.0.0.1 (it serves and it calls), signed by `issuer`. */
function leaf(dir: string, name: string, issuer: string): Leaf {
  writeFileSync(join(dir, `${name}.ext`), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
  openssl(['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '2',
    '-extfile', `${name}.ext`], dir);
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/** Issues a throw-away CA with two leaves, and a rogue CA with one, with the openssl CLI, into a temporary folder. */
export function issueTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'es2-pki-'));
  ca(dir, 'ca');
  ca(dir, 'rogue-ca');
  const caFile = join(dir, 'ca.pem');
  return {
    caFile,
    ca: readFileSync(caFile, 'utf8'),
    smdp: leaf(dir, 'smdp', 'ca'),
    operator: leaf(dir, 'operator', 'ca'),
    rogue: leaf(dir, 'rogue', 'rogue-ca'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
