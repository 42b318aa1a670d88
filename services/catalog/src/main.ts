import { createLogger } from '@esim/telemetry';
import { exitOnBootFailure, shutdownOnSignals } from '@esim/runtime';
import { readConfig } from './config.js';
import { startCatalog } from './app.js';

const logger = createLogger('catalog', 'info');

try {
  const config = readConfig();
  logger.level = config.LOG_LEVEL;
  const app = await startCatalog(config, logger);
  logger.info({ grpcPort: app.grpcPort, healthPort: app.healthPort, plans: app.cache.size() }, 'catalog ready');
  shutdownOnSignals(logger, app.shutdownSteps);
} catch (error) {
  exitOnBootFailure(logger, error);
}
