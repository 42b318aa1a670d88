/**
 * `npm start`: the whole platform on this machine, each service its own
 * process, against the Postgres, Redis and NATS named by the environment.
 * Ctrl-C stops everything, front door first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launcherConfig } from './launcher/config.js';
import { startPlatform } from './launcher/platform.js';
import { repoRoot } from './launcher/supervisor.js';

const startedAt = Date.now();
const { config, ports, env, testModeReplicas } = launcherConfig();
process.stdout.write('Starting the platform…\n');

let platform: Awaited<ReturnType<typeof startPlatform>>;
// A service that dies after "ready" takes the platform down loudly: a half platform that looks up is worse than none.
const onUnexpectedExit = (name: string, code: number | null) => {
  process.stderr.write(`\n${name} exited unexpectedly (code ${code}); stopping the platform. See ${platform.logDir}/${name}.log\n`);
  void platform.stop().then(() => process.exit(1));
};
try {
  platform = await startPlatform({ env, ports, onUnexpectedExit, testModeReplicas });
} catch (error) {
  process.stderr.write(`\n${(error as Error).message}\n`);
  process.exit(1);
}

const adminToken = config.ADMIN_TOKEN ?? readFileSync(join(repoRoot, 'var', 'secrets', 'admin_token'), 'utf8').trim();
const publicUrl = `http://localhost:${platform.ports.gateway!.http}`;
const adminUrl = `http://localhost:${platform.ports.gateway!.admin}`;
const mail = config.SMTP_URL ? `sent over ${config.SMTP_URL}` : `written as .eml files to ${join(repoRoot, 'var', 'mail')}`;
process.stdout.write(
  [
    '',
    `  Platform ready in ${((Date.now() - startedAt) / 1000).toFixed(1)}s (namespace ${config.PLATFORM_NAMESPACE})`,
    '',
    `  Partner API   ${publicUrl}/api/v1        docs ${publicUrl}/docs`,
    `  Admin API     ${adminUrl}/admin/v1       docs ${adminUrl}/docs`,
    `  Portals       ${publicUrl}/portal/ (partners)   ${adminUrl}/console/ (operators)`,
    `  Supplier sim  http://localhost:${ports['supplier-sim']!.http}  (control API: POST /simulator/esims/{iccid}/install|usage|expire)`,
    `  Admin token   ${adminToken}`,
    `  E-mails       ${mail}`,
    `  Logs          ${platform.logDir}/<service>.log (warnings and errors are shown here)`,
    '',
    '  Press Ctrl-C to stop.',
    '',
  ].join('\n'),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  process.stdout.write('\nStopping…\n');
  await platform.stop();
  process.stdout.write('Stopped.\n');
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
