export { createPool, withClient, withTransaction, pgErrorCode, type Pool, type PoolClient, type Queryable } from './pool.js';
export { ensureDatabase, migrate, pendingMigrations } from './migrate.js';
export { pageWindow, maxPageLimit, type PageWindow } from './paging.js';
export { listenFor, type Listener } from './listen.js';
export { notifyAfterCommit } from './notify.js';
export { boundTransaction, DeadlinePassed } from './deadline.js';
export { grantServiceRole, scramVerifier, migrationRecordTables, type ServiceRoleGrant, type ServiceRoleOutcome } from './serviceRole.js';
