export { identityHeaders, startHealthServer, type ProcessIdentity, runReadiness, type HealthServer, type ReadinessCheck } from './health.js';
export { shutdownOnSignals, exitOnBootFailure, type ShutdownStep } from './shutdown.js';
