/**
 * The browser tests (test/e2e/portals*.test.ts) drive a real Chromium,
 * Debian's package. `npm test` finds it, or installs it the way .ci/run
 * does when it can (root with apt-get), or stops with one line naming the
 * command to run, instead of three browser test files failing later.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync } from 'node:fs';
import { dirname } from 'node:path';

export const defaultChromiumPath = '/usr/bin/chromium';
/** apt-get update plus the package and its libraries: minutes on a slow mirror, never unbounded. */
const installTimeoutMs = 10 * 60_000;
const installCommand = 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium';

export interface ChromiumHost {
  env: NodeJS.ProcessEnv;
  exists(path: string): boolean;
  isRoot: boolean;
  hasAptGet: boolean;
  /** Runs the install command, its output to `logFile`; true when it exited 0. */
  install(command: string, logFile: string, timeoutMs: number): boolean;
}

export type ChromiumCheck = { ok: true; path: string; note?: string } | { ok: false; message: string };

/** Where the browser tests look (test/e2e/support/browser.ts reads the same variable). */
export function chromiumPath(env: NodeJS.ProcessEnv): string {
  return env.CHROMIUM_PATH || defaultChromiumPath;
}

export function ensureChromium(host: ChromiumHost, logFile: string): ChromiumCheck {
  const path = chromiumPath(host.env);
  if (host.exists(path)) return { ok: true, path };
  if (host.env.CHROMIUM_PATH) return { ok: false, message: `CHROMIUM_PATH=${path} does not exist: point it at a Chromium binary, or unset it and run \`sudo apt-get install -y chromium\`.` };
  if (!host.isRoot || !host.hasAptGet) return { ok: false, message: `The browser tests need Chromium at ${path}: run \`sudo apt-get install -y chromium\` (or set CHROMIUM_PATH), then npm test again.` };
  const installed = host.install(installCommand, logFile, installTimeoutMs) && host.exists(path);
  if (installed) return { ok: true, path, note: `installed Chromium for the browser tests (log: ${logFile})` };
  return { ok: false, message: `Installing Chromium failed (see ${logFile}): run \`${installCommand}\` yourself, then npm test again.` };
}

/** This machine, for scripts/test.ts. */
export function localHost(): ChromiumHost {
  return {
    env: process.env,
    exists: existsSync,
    isRoot: process.getuid?.() === 0,
    hasAptGet: spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0,
    install(command, logFile, timeoutMs) {
      mkdirSync(dirname(logFile), { recursive: true });
      const log = openSync(logFile, 'w');
      try {
        return spawnSync('bash', ['-c', command], { stdio: ['ignore', log, log], timeout: timeoutMs }).status === 0;
      } finally {
        closeSync(log);
      }
    },
  };
}
