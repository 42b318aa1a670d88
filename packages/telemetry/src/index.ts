export { createLogger, maskEmail, type Logger } from './logger.js';
export { serveMetrics, shutdownTelemetry, startTelemetry, tracesOwnHttpServers } from './sdk.js';
export { endServerSpan, runInServerSpan, type ServerSpanRequest } from './httpServerSpans.js';
export { EdgeAwareParentBasedSampler, samplerFor } from './sampler.js';
export { readTelemetryConfig } from './config.js';
export { resourceAttributes } from './resource.js';
export { startRuntimeMetrics } from './runtimeMetrics.js';
export { metrics, trace, context, propagation, SpanStatusCode } from '@opentelemetry/api';
// Background jobs' own queries make no spans (a poll never becomes a root span).
export { suppressTracing } from '@opentelemetry/core';
