/**
 * Which services each service dials, for the NetworkPolicies: read from what
 * its config declares (`CATALOG_ADDR`, `SUPPLIER_URL`…), so the policies
 * follow the code and no second list can drift from it. Every service is
 * handed every address; only the ones its config names are ones it uses.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constantCase, type PortKind, type ServiceEntry } from '../launcher/services.js';
import { repoRoot } from '../launcher/supervisor.js';

export interface Call {
  /** The service called. */
  target: ServiceEntry;
  port: PortKind;
}

function configText(entry: ServiceEntry): string {
  try {
    return readFileSync(join(repoRoot, 'services', entry.name, 'src', 'config.ts'), 'utf8');
  } catch {
    return ''; // an entry without a folder yet (the generator's tests) calls nothing
  }
}

/** The gRPC APIs and URL-addressed services `entry`'s config reads. */
export function callsOf(entry: ServiceEntry, list: readonly ServiceEntry[]): Call[] {
  const text = configText(entry);
  const calls: Call[] = [];
  for (const target of list) {
    if (target.name === entry.name) continue;
    if (target.ports.grpc !== undefined && new RegExp(`\\b${constantCase(target.name)}_ADDR\\b`).test(text)) calls.push({ target, port: 'grpc' });
    if (target.url && new RegExp(`\\b${target.url.variable}\\b`).test(text)) calls.push({ target, port: target.url.port });
    if (target.callback && new RegExp(`\\b${target.callback.variable}\\b`).test(text)) calls.push({ target, port: target.callback.port });
  }
  return calls;
}

/**
 * The services whose test-mode replicas `entry`'s config can dial apart from
 * the service itself, by a `<NAME>_TEST_ADDR` variable (the gateway's
 * WALLET_TEST_ADDR…: a test account's calls, contract §14). Read from the
 * config like the rest, so the gateway is handed exactly the addresses it
 * declares and the policies open exactly those calls.
 */
export function testModeCallsOf(entry: ServiceEntry, list: readonly ServiceEntry[]): ServiceEntry[] {
  const text = configText(entry);
  return list.filter((target) => target.name !== entry.name && target.ports.grpc !== undefined && new RegExp(`\\b${constantCase(target.name)}_TEST_ADDR\\b`).test(text));
}

/** The services that call `entry`, with the port they call it on. */
export function callersOf(entry: ServiceEntry, list: readonly ServiceEntry[]): Array<{ caller: ServiceEntry; port: PortKind }> {
  return list.flatMap((caller) => callsOf(caller, list).filter((call) => call.target.name === entry.name).map((call) => ({ caller, port: call.port })));
}

/** Serves gRPC or calls a gRPC API: it needs a certificate of the platform CA (mutual TLS, docs/security.md). */
export function usesGrpc(entry: ServiceEntry, list: readonly ServiceEntry[]): boolean {
  return entry.ports.grpc !== undefined || callsOf(entry, list).some((call) => call.port === 'grpc');
}
