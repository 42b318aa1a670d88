import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '@esim/testing';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface MailerProcess {
  healthPort: number;
  /** Everything the process wrote to stdout and stderr so far (its JSON log lines). */
  output(): string;
  /** Sends the signal and resolves with the exit code once the process is gone (SIGKILL after `timeoutMs`). */
  stop(signal: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/** Starts `services/mailer/src/main.ts` as a real child process and waits until its /readyz answers 200. */
export async function startMailerProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<MailerProcess> {
  const inherited = Object.fromEntries(['PATH', 'HOME', 'TMPDIR'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
  const child: ChildProcess = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', 'services/mailer/src/main.ts'], {
    cwd: repoRoot,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve((exitCode = code))));

  const process_: MailerProcess = {
    healthPort: 0,
    output: () => output,
    async stop(signal, stopTimeoutMs = 15_000) {
      if (exitCode !== undefined) return exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  try {
    await until(() => {
      if (exitCode !== undefined) throw new Error(`mailer exited with ${exitCode}:\n${output}`);
      return /"msg":"mailer ready"/.test(output);
    }, 'the mailer to start', timeoutMs);
    process_.healthPort = Number(/"ports":\{"health":(\d+)/.exec(output)?.[1]);
    await until(async () => (await fetch(`http://127.0.0.1:${process_.healthPort}/readyz`).catch(() => undefined))?.status === 200, '/readyz', 10_000);
  } catch (error) {
    await process_.stop('SIGKILL');
    throw error;
  }
  return process_;
}
