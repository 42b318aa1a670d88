export { createTestInfra, natsUrl, type PublishOptions, type ServedService, type TestInfra } from './infra.js';
export { dropDatabase, postgresUrl } from './database.js';
export { eventually, until } from './poll.js';
export { startNatsCluster, type NatsCluster, type NatsNode } from './clusters/natsCluster.js';
export { startRedisCluster, type RedisCluster, type RedisClusterNode } from './clusters/redisCluster.js';
export { startPgProxy, type PgProxy } from './pgProxy.js';
export { postgresBinaries, startPrivatePostgres, type PrivatePostgres } from './privatePostgres.js';
export { startTcpProxy, type TcpProxy } from './tcpProxy.js';
