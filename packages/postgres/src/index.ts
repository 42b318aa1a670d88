export { createPool, withTransaction, pgErrorCode, type Pool, type PoolClient, type Queryable } from './pool.js';
export { ensureDatabase, migrate } from './migrate.js';
