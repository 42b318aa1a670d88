// Protects #17's per-service allow-list of internal calls (packages/grpc/src/access.ts) from
// drifting: the services each caller may call are exactly the ones its config dials (the
// NetworkPolicies' caller map, scripts/deploy/calls.ts); every service and method it names
// exists; and every method a caller's code uses is one it is allowed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { grpcCallers, grpcHosts, platformAccess } from '@esim/grpc';
import * as proto from '@esim/proto';
import { describe, expect, it } from 'vitest';
import { callsOf } from '../scripts/deploy/calls.js';
import { services } from '../scripts/launcher/services.js';
import { repoRoot } from '../scripts/launcher/supervisor.js';

type AnyService = GenService<GenServiceMethods>;

/** Every generated gRPC service, by proto type name. */
const generated = new Map<string, AnyService>();
for (const module of Object.values(proto)) {
  if (typeof module !== 'object' || module === null) continue;
  for (const value of Object.values(module)) {
    const candidate = value as Partial<AnyService>;
    if (candidate && typeof candidate.typeName === 'string' && Array.isArray(candidate.methods)) generated.set(candidate.typeName, candidate as AnyService);
  }
}

function sourcesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourcesOf(path) : name.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}

describe('the allow-list of internal calls', () => {
  it('names a host for every generated gRPC service, and each host serves gRPC', () => {
    expect(Object.keys(grpcHosts).sort()).toEqual([...generated.keys()].sort());
    for (const host of Object.values(grpcHosts)) expect(services.find((entry) => entry.name === host)?.ports.grpc, host).toBeDefined();
  });

  it('names only methods that exist', () => {
    for (const [caller, allowed] of Object.entries(grpcCallers)) {
      for (const [typeName, methods] of Object.entries(allowed)) {
        const service = generated.get(typeName);
        expect(service, `${caller} → ${typeName}`).toBeDefined();
        const names = service!.methods.map((method) => method.name);
        for (const method of methods) expect(names, `${caller} → ${typeName}/${method}`).toContain(method);
      }
    }
  });

  it('lets each service call exactly the services its config dials (the NetworkPolicies\' caller map)', () => {
    for (const entry of services) {
      const dialled = callsOf(entry, services)
        .filter((call) => call.port === 'grpc')
        .map((call) => call.target.name)
        .sort();
      const allowed = [...new Set(Object.keys(grpcCallers[entry.name] ?? {}).map((typeName) => grpcHosts[typeName]))].sort();
      expect(allowed, `${entry.name}'s allowed hosts`).toEqual(dialled);
    }
  });

  it('allows every method a caller\'s code uses on the services it dials', () => {
    for (const [caller, allowed] of Object.entries(grpcCallers)) {
      const code = sourcesOf(join(repoRoot, 'services', caller, 'src')).join('\n');
      for (const typeName of Object.keys(allowed)) {
        for (const method of generated.get(typeName)!.methods) {
          if (new RegExp(`\\.${method.localName}\\b`).test(code)) expect(allowed[typeName], `${caller} uses ${typeName}/${method.name}`).toContain(method.name);
        }
      }
    }
  });

  it('decides by caller and method, refuses unknown callers, and lets the test harness through only when asked', () => {
    const access = platformAccess();
    expect(access('orders', '/wallet.v1.WalletService/Reserve')).toBe(true);
    expect(access('gateway', '/wallet.v1.WalletService/Reserve')).toBe(false);
    expect(access('webhooks', '/partners.v1.PartnersService/GetPartner')).toBe(false);
    expect(access(undefined, '/catalog.v1.CatalogService/ListPlans')).toBe(false);
    expect(access('test-harness', '/wallet.v1.WalletService/Reserve')).toBe(false);
    expect(platformAccess({ unrestricted: ['test-harness'] })('test-harness', '/wallet.v1.WalletService/Reserve')).toBe(true);
  });
});
