import type { Stoppable } from '@esim/service';

/**
 * Runs `round` every `intervalMs`, one round at a time. The timer is
 * unref'd so it never keeps the process alive; `stop` waits for the round
 * in flight and is safe to call twice. A round handles its own failures.
 */
export function startRounds(intervalMs: number, round: () => Promise<void>): Stoppable {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round().finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
