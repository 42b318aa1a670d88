import type { Stoppable } from '@esim/service';

/**
 * Runs `round` every `intervalMs`, one round at a time. The timer is
 * unref'd so it never keeps the process alive; `stop` aborts the round in
 * flight (its `signal`: a round checks it between orders and ends early,
 * each order it started left whole) and waits for it; safe to call twice.
 * A round handles its own failures.
 */
export function startRounds(intervalMs: number, round: (signal: AbortSignal) => Promise<void>): Stoppable {
  const aborter = new AbortController();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round(aborter.signal).finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      aborter.abort();
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
