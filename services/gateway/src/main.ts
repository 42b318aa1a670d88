import { exitOnBootFailure, shutdownOnSignals } from '@esim/runtime';
import { createLogger } from '@esim/telemetry';
import { buildGateway } from './app.js';
import { readConfig } from './config.js';

const logger = createLogger('gateway', 'info');

try {
  const config = readConfig();
  logger.level = config.LOG_LEVEL;
  const gateway = await buildGateway(config, logger);
  await gateway.publicApp.listen({ port: config.PORT, host: config.HOST });
  await gateway.adminApp.listen({ port: config.ADMIN_PORT, host: config.HOST });
  logger.info({ port: config.PORT, adminPort: config.ADMIN_PORT }, 'gateway ready');
  shutdownOnSignals(logger, gateway.shutdownSteps);
} catch (error) {
  exitOnBootFailure(logger, error);
}
