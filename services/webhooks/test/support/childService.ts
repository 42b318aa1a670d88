import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));

export interface ChildService {
  process: ChildProcess;
  /** Ends it at once, as a crash or an OOM kill would: nothing is drained or recorded. */
  kill(): Promise<void>;
}

/** Runs services/webhooks/src/main.ts as its own process, as npm start does, and resolves once it logs that it is ready. */
export function spawnWebhooks(env: Record<string, string>): Promise<ChildService> {
  const child = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', 'services/webhooks/src/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`webhooks did not become ready:\n${output.slice(-2_000)}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"msg":"webhooks ready"')) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve({
          process: child,
          async kill() {
            child.kill('SIGKILL');
            await exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`webhooks exited with ${code} before it was ready:\n${output.slice(-2_000)}`));
    });
  });
}
