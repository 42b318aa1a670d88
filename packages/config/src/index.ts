export { loadConfig, ConfigError } from './load.js';
export { booleanFlag, commonEnv, namespaceSchema, durationMs, natsServerList, natsServers, redisClusterNodes, type RedisNode } from './fields.js';
export { devSecret, varDir, withDevSecrets } from './devSecrets.js';
