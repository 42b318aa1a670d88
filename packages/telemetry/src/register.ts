/**
 * Preloaded with `node --import tsx --import @esim/telemetry/register`, before
 * the service's module graph: under ESM, grpc-js, pg and ioredis are only
 * patched when the loader hook is registered before they are first imported.
 */
import { register } from 'node:module';

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
const { startTelemetry } = await import('./sdk.js');
await startTelemetry();
