import type { Connection } from './config.js';
import { CliError, exitCodes } from './errors.js';

export type { Connection } from './config.js';

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
