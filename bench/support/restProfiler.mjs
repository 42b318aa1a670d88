// Preloaded into every service by bench/rest.ts with BENCH_REST_PROFILE=1 (Node 20 refuses --cpu-prof in
// NODE_OPTIONS): the first SIGUSR2 starts V8's CPU profiler, the second writes the window's profile to
// $BENCH_PROFILE_DIR/<service>.cpuprofile, so the profile holds the at-rest window and nothing of the boot.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const session = new Session();
let running = false;
process.on('SIGUSR2', () => {
  if (!running) {
    running = true;
    session.connect();
    session.post('Profiler.enable', () => session.post('Profiler.start'));
    return;
  }
  running = false;
  session.post('Profiler.stop', (error, result) => {
    if (!error) writeFileSync(join(process.env.BENCH_PROFILE_DIR, `${process.env.OTEL_SERVICE_NAME ?? process.pid}.cpuprofile`), JSON.stringify(result.profile));
    session.disconnect();
  });
});
