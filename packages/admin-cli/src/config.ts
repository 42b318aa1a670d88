import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CliError, exitCodes } from './errors.js';

/**
 * The CLI's settings: flags first, then ADMIN_URL, the operator's own token
 * (ESIM_OPERATOR_TOKEN, `op_<prefix>_<secret>` as e-mailed, §10) or the
 * break-glass ADMIN_TOKEN, and ADMIN_OPERATOR (a note in the audit log; the
 * actor is the token's operator), then the development defaults (localhost,
 * the token `npm start` wrote). The only place the CLI reads the environment.
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
  const token = options.token ?? (env.ESIM_OPERATOR_TOKEN || undefined) ?? env.ADMIN_TOKEN ?? developmentToken();
  if (!token) {
    throw new CliError(
      'No token: set ESIM_OPERATOR_TOKEN to your operator token (or pass --token); ADMIN_TOKEN and var/secrets/admin_token (written by `npm start`) are the break-glass fallback.',
      exitCodes.unauthorized,
    );
  }
  return { url, token, operator: options.operator ?? env.ADMIN_OPERATOR, timeoutMs: 15_000 };
}

