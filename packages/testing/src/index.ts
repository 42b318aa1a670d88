export { createTestInfra, natsUrl, type PublishOptions, type ServedService, type TestInfra } from './infra.js';
export { dropDatabase, postgresUrl } from './database.js';
export { eventually, until } from './poll.js';
