// Protects the spans of every database and cache call: the telemetry preload patches pg and ioredis before a service's ESM code imports them, without an ESM loader hook; grpc-js is left alone (@esim/grpc traces its own calls, test/grpcTracing.test.ts there).
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

const probe = `
import pg from 'pg';
import * as grpc from '@grpc/grpc-js';
import { Redis } from 'ioredis';
console.log(JSON.stringify({
  pgQuery: Boolean(pg.Client.prototype.query.__wrapped),
  pgPoolConnect: Boolean(pg.Pool.prototype.connect.__wrapped),
  grpcClients: Boolean(grpc.makeGenericClientConstructor.__wrapped),
  grpcServer: Boolean(grpc.Server.prototype.register.__wrapped),
  ioredis: Boolean(Redis.prototype.sendCommand.__wrapped),
}));
`;

/** Runs the probe as a service does: from its folder, with the preload (sources, as npm start runs them). */
function patchedInService(service: string, preload: boolean): Record<string, boolean> {
  const file = join(repoRoot, 'services', service, `.register-probe-${process.pid}.mjs`);
  writeFileSync(file, probe);
  try {
    const args = ['--conditions=development', '--import', 'tsx', ...(preload ? ['--import', '@esim/telemetry/register'] : []), file];
    const output = execFileSync(process.execPath, args, { cwd: join(repoRoot, 'services', service), env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' }, encoding: 'utf8' });
    return JSON.parse(output.trim().split('\n').at(-1)!) as Record<string, boolean>;
  } finally {
    rmSync(file, { force: true });
  }
}

describe('telemetry preload', () => {
  it('when a service imports pg, grpc-js and ioredis as ES modules after the preload, then pg and ioredis are already patched for tracing and grpc-js is not', () => {
    expect(patchedInService('orders', true)).toEqual({ pgQuery: true, pgPoolConnect: true, grpcClients: false, grpcServer: false, ioredis: true });
  });

  it('when the preload is left out, then none is patched (the probe can tell)', () => {
    expect(patchedInService('orders', false)).toEqual({ pgQuery: false, pgPoolConnect: false, grpcClients: false, grpcServer: false, ioredis: false });
  });
});
