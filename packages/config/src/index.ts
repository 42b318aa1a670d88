export { loadConfig, ConfigError } from './load.js';
export { booleanFlag, commonEnv, namespaceSchema, durationMs } from './fields.js';
export { devSecret, varDir, withDevSecrets } from './devSecrets.js';
