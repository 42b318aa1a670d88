import { createLogger } from '@esim/telemetry';
import { exitOnBootFailure, shutdownOnSignals } from '@esim/runtime';
import { readConfig } from './config.js';
import { startMailer } from './app.js';

const logger = createLogger('mailer', 'info');

try {
  const config = readConfig();
  logger.level = config.LOG_LEVEL;
  const app = await startMailer(config, logger);
  logger.info({ healthPort: app.healthPort, transport: app.transport }, 'mailer ready');
  shutdownOnSignals(logger, app.shutdownSteps);
} catch (error) {
  exitOnBootFailure(logger, error);
}
