import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CliError, exitCodes } from './errors.js';

/**
 * The CLI's settings: flags first, then ADMIN_URL, ADMIN_TOKEN and
 * ADMIN_OPERATOR, then the development defaults (localhost, the token
 * `npm start` wrote). The only place the CLI reads the environment.
 */
export interface Connection {
  url: string;
  token: string;
  operator?: string;
  timeoutMs: number;
}

/** `var/secrets/admin_token` of the checkout around the working directory, as `npm start` writes it. */
function developmentToken(from = process.cwd()): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const file = join(dir, 'var', 'secrets', 'admin_token');
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
    if (dirname(dir) === dir) return undefined;
  }
}

export function connection(options: { url?: string; token?: string; operator?: string }, env: NodeJS.ProcessEnv = process.env): Connection {
  const url = (options.url ?? env.ADMIN_URL ?? 'http://localhost:8081').replace(/\/+$/, '');
  const token = options.token ?? env.ADMIN_TOKEN ?? developmentToken();
  if (!token) throw new CliError('No admin token: set ADMIN_TOKEN (or pass --token); `npm start` writes one to var/secrets/admin_token.', exitCodes.unauthorized);
  return { url, token, operator: options.operator ?? env.ADMIN_OPERATOR, timeoutMs: 15_000 };
}

