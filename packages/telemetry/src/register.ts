/**
 * Preloaded with `node --import @esim/telemetry/register`, before the
 * service's module graph. It starts telemetry, then loads the CommonJS
 * libraries the instrumentations patch (pg, ioredis; gRPC traces itself) through
 * `require`, which the instrumentations hook: the service's ESM imports then
 * receive the patched modules from Node's CommonJS cache. This replaces an
 * ESM loader hook (import-in-the-middle), whose loader thread and per-module
 * wrappers cost every process about 15 MiB (docs/benchmarks.md).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

const { startTelemetry } = await import('./sdk.js');
await startTelemetry();

const requireAsTheService = createRequire(join(process.cwd(), 'package.json'));
for (const name of ['pg', 'ioredis']) {
  try {
    requireAsTheService(name);
  } catch {
    // Not a dependency of the service in this folder: nothing to patch.
  }
}
