import type { Logger } from '@esim/telemetry';

export interface ShutdownStep {
  name: string;
  run: () => Promise<unknown> | unknown;
}

/**
 * On SIGINT or SIGTERM, runs the steps in order (stop accepting work, stop
 * consumers, drain NATS, close pools, flush telemetry) under one deadline,
 * then exits. Kubernetes sends SIGTERM after the preStop pause and kills at
 * terminationGracePeriodSeconds counted from the pause's start, so the
 * deadline must fit in what is left with room to spare (deploy/k8s: 5 s
 * pause + 20 s deadline + 10 s margin = 35 s). A step that fails is logged
 * and the rest still run.
 */
export function shutdownOnSignals(logger: Logger, steps: ShutdownStep[], deadlineMs = 20_000): void {
  let started = false;
  const shutdown = async (signal: string) => {
    if (started) return;
    started = true;
    logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
    for (const step of steps) {
      try {
        await step.run();
      } catch (error) {
        logger.error({ err: error, step: step.name }, 'shutdown step failed');
      }
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

/**
 * The last line of every main.ts: a failed boot prints one clear line
 * (a ConfigError names the variable) and exits non-zero instead of a hang.
 */
export function exitOnBootFailure(logger: Logger, error: unknown): never {
  if (error instanceof Error && error.name === 'ConfigError') {
    process.stderr.write(`${error.message}\n`);
  } else {
    logger.fatal({ err: error }, 'failed to start');
  }
  process.exit(1);
}
