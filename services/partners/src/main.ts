import { createLogger } from '@esim/telemetry';
import { exitOnBootFailure, shutdownOnSignals } from '@esim/runtime';
import { readConfig } from './config.js';
import { startPartners } from './app.js';

const logger = createLogger('partners', 'info');

try {
  const config = readConfig();
  logger.level = config.LOG_LEVEL;
  const app = await startPartners(config, logger);
  logger.info({ grpcPort: app.grpcPort, healthPort: app.healthPort }, 'partners ready');
  shutdownOnSignals(logger, app.shutdownSteps);
} catch (error) {
  exitOnBootFailure(logger, error);
}
