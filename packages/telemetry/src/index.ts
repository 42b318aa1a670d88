export { createLogger, maskEmail, type Logger } from './logger.js';
export { serveMetrics, startTelemetry } from './sdk.js';
export { metrics, trace, context, propagation, SpanStatusCode } from '@opentelemetry/api';
