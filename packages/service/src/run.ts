import { exitOnBootFailure, shutdownOnSignals, type ShutdownStep } from '@esim/runtime';
import { createLogger, shutdownTelemetry } from '@esim/telemetry';
import { BootAborted } from './boot.js';
import type { ServiceDefinition } from './define.js';
import type { BaseConfig } from './env.js';
import { startService } from './start.js';

/** The deadline of a stop requested while the service is still starting (its config may not be parsed yet). */
const bootAbortDeadlineMs = 20_000;

/** Spans of the last requests and of the shutdown itself reach the collector: always the last step. */
const telemetryStep: ShutdownStep = { name: 'telemetry', run: () => shutdownTelemetry() };

/**
 * The whole of every `src/main.ts`: start the service from the process
 * environment, log one "ready" line, stop in order on SIGTERM/SIGINT, and
 * turn a failed boot into one clear line and exit code 1. A signal that
 * arrives during the start (a pod deleted while it migrates or waits for
 * NATS) stops what had started and exits 0 rather than being ignored until
 * the kubelet's SIGKILL. With MIGRATE=only the process migrates and exits 0.
 */
export async function runService<C extends BaseConfig>(definition: ServiceDefinition<C>): Promise<void> {
  const logger = createLogger(definition.name, 'info');
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));

  const boot = new AbortController();
  const onBootSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'signal during start; stopping what has started');
    boot.abort(new BootAborted(`${signal} during start`));
    setTimeout(() => {
      logger.error({ deadlineMs: bootAbortDeadlineMs }, 'stop during start overran its deadline; exiting');
      process.exit(1);
    }, bootAbortDeadlineMs).unref();
  };
  process.once('SIGTERM', onBootSignal);
  process.once('SIGINT', onBootSignal);
  const exitStopped = async () => {
    await telemetryStep.run();
    logger.info('stopped');
    process.exit(0);
  };

  let running: Awaited<ReturnType<typeof startService<C>>>;
  try {
    running = await startService(definition, { logger, signal: boot.signal });
  } catch (error) {
    if (boot.signal.aborted) return exitStopped();
    await shutdownTelemetry(2_000);
    exitOnBootFailure(logger, error);
  } finally {
    process.off('SIGTERM', onBootSignal);
    process.off('SIGINT', onBootSignal);
  }

  if (running.mode === 'migrated') {
    logger.info(`${definition.name}: migrations applied (MIGRATE=only); exiting`);
    await telemetryStep.run();
    process.exit(0);
  }
  if (boot.signal.aborted) {
    await running.close();
    return exitStopped();
  }
  logger.level = running.config.LOG_LEVEL;
  logger.info({ ports: running.ports, ...running.facts }, `${definition.name} ready`);
  shutdownOnSignals(logger, [...running.shutdownSteps, telemetryStep], running.config.SHUTDOWN_TIMEOUT_MS);
}
