import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A NATS server of the suite's own (JetStream on, its own store directory),
 * so a test can restart it mid-load without touching the machine's NATS that
 * a developer's `npm start` uses. Without the binary the suite falls back to
 * NATS_URL and the restart tests are skipped, visibly.
 */
export interface SuiteNats {
  url: string;
  /** True when this suite owns the server and can restart it. */
  restartable: boolean;
  /** Kills the server (SIGKILL: an outage, not a clean shutdown) and starts it again on the same port and store. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const candidates = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port }, () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function startSuiteNats(port: number, fallbackUrl: string): Promise<SuiteNats> {
  const binary = process.env.NATS_SERVER_BIN ?? candidates.find((path) => existsSync(path));
  if (!binary) {
    return { url: fallbackUrl, restartable: false, restart: async () => Promise.reject(new Error('no nats-server binary: cannot restart NATS')), stop: async () => {} };
  }
  const storeDir = mkdtempSync(join(tmpdir(), 'esim-e2e-nats-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
    await waitFor(() => listening(port), `nats-server on port ${port}`);
  };
  const kill = async (signal: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    restartable: true,
    async restart(downMs = 1_000) {
      await kill('SIGKILL');
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async stop() {
      await kill('SIGTERM');
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
