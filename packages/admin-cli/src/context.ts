import { InvalidArgumentError, type Command } from 'commander';
import { connection, type Connection } from './config.js';
import { CliError, exitCodes } from './errors.js';
import type { Output } from './output.js';

export interface Context {
  conn: Connection;
  out: Output;
}

/** Wraps an action: the connection and output mode from the global options, and every failure turned into its exit code. */
export function action<A extends unknown[]>(body: (ctx: Context, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const globals = command.optsWithGlobals() as { url?: string; token?: string; operator?: string; json?: boolean };
    try {
      await body({ conn: connection(globals), out: { json: Boolean(globals.json) } }, ...(args.slice(0, -1) as A));
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      if (globals.json && error.problem !== undefined) process.stdout.write(`${JSON.stringify(error.problem, null, 2)}\n`);
      process.stderr.write(`esim-admin: ${error.message}\n`);
      process.exitCode = error.exitCode;
    }
  };
}

export function positiveInteger(value: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(value)) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return Number(value);
}

export function signedInteger(value: string): number {
  if (!/^-?[1-9][0-9]{0,14}$/.test(value)) throw new InvalidArgumentError('must be a non-zero whole number of minor units, e.g. -500');
  return Number(value);
}

export const tiers = ['standard', 'premium', 'enterprise'];

export function oneOf(allowed: string[]) {
  return (value: string) => {
    if (!allowed.includes(value)) throw new InvalidArgumentError(`must be one of ${allowed.join(', ')}`);
    return value;
  };
}

export const unusable = (message: string) => new CliError(message, exitCodes.usage);

export const encode = encodeURIComponent;

export function pageParams(options: { page?: number; limit?: number }, extra: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...extra, page: options.page?.toString(), limit: options.limit?.toString() })) if (v !== undefined) query.set(k, v);
  const text = query.toString();
  return text ? `?${text}` : '';
}
