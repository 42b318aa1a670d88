import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CliError, exitCodes } from './errors.js';

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

export function connection(options: { url?: string; token?: string; operator?: string }): Connection {
  const url = (options.url ?? process.env.ADMIN_URL ?? 'http://localhost:8081').replace(/\/+$/, '');
  const token = options.token ?? process.env.ADMIN_TOKEN ?? developmentToken();
  if (!token) throw new CliError('No admin token: set ADMIN_TOKEN (or pass --token); `npm start` writes one to var/secrets/admin_token.', exitCodes.unauthorized);
  return { url, token, operator: options.operator ?? process.env.ADMIN_OPERATOR, timeoutMs: 15_000 };
}

/** One admin API call: the parsed body on 2xx, a CliError with the right exit code otherwise. */
export async function call<T = any>(conn: Connection, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${conn.token}`, 'user-agent': 'esim-admin' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (conn.operator) headers['x-operator'] = conn.operator;
  let response: Response;
  try {
    response = await fetch(`${conn.url}/admin/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(conn.timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
    const reason = cause?.code ?? cause?.errors?.[0]?.code ?? (error as Error).message;
    throw new CliError(`Cannot reach the admin API at ${conn.url} (${reason}).`, exitCodes.unavailable);
  }
  const text = await response.text();
  let parsed: any = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (response.ok) return parsed as T;
  const what = parsed?.code ? `${parsed.code}: ${parsed.detail}` : `HTTP ${response.status}`;
  const code = response.status === 401 ? exitCodes.unauthorized : response.status >= 500 ? exitCodes.unavailable : exitCodes.refused;
  throw new CliError(`${method} ${path} answered ${response.status} ${what}`, code, parsed);
}
