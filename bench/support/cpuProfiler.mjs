/**
 * Preloaded into each service by bench/profileHops.ts and bench/rest.ts (NODE_OPTIONS=--import,
 * since Node 20 refuses --cpu-prof there): the first SIGUSR2 starts V8's CPU
 * profiler in-process, the second stops it and writes
 * `<CPU_PROFILE_DIR>/<OTEL_SERVICE_NAME>.<pid>.cpuprofile`. Only the window
 * the benchmark measures is sampled, not start-up.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () =>
        session.post('Profiler.setSamplingInterval', { interval: Number(process.env.CPU_PROFILE_INTERVAL_US ?? 1000) }, () => session.post('Profiler.start')),
      );
      return;
    }
    running = false;
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      writeFileSync(join(dir, `${process.env.OTEL_SERVICE_NAME ?? 'node'}.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
      session.post('Profiler.disable');
    });
  });
}
