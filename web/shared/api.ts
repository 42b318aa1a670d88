import type { Problem } from './types.js';

/** An answer that is not 2xx, carrying the API's RFC 9457 problem (its `detail` is what the apps show). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
    this.name = 'ApiError';
  }
}

/** A problem made up on this side, for answers that carry none (network down, a proxy's HTML page). */
function localProblem(status: number, code: string, detail: string): Problem {
  return { type: 'about:blank', title: code, status, code, detail, requestId: '' };
}

export type Query = Record<string, string | number | undefined | null>;

export interface ClientOptions {
  /** `/api/v1` or `/admin/v1`: always this origin, so credentials go nowhere else. */
  base: string;
  /** Headers of every call (the credential, X-Operator). */
  headers: () => Record<string, string>;
  /** Called with every 401 problem, before the call rejects: the app signs out. */
  onUnauthorized: (problem: Problem) => void;
  /** Called with every 403 problem. */
  onForbidden?: (problem: Problem) => void;
}

export interface Client {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  /** A POST whose status matters (a top-up answers 200 for a reference credited before, 201 for a new credit). */
  postForStatus<T>(path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** A DELETE (answers 204 without a body). */
  delete(path: string): Promise<void>;
  /** A GET of a non-JSON answer (a CSV export), as text. */
  getText(path: string): Promise<string>;
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export function createClient(options: ClientOptions): Client {
  async function send<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T; text: string }> {
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json', ...options.headers() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${options.base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(localProblem(0, 'UNAVAILABLE', 'The server could not be reached. Check your connection and try again.'));
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.ok) return { status: response.status, body: parsed as T, text };
    const problem =
      parsed && typeof parsed === 'object' && 'detail' in parsed
        ? (parsed as Problem)
        : localProblem(response.status, 'UNAVAILABLE', `The server answered ${response.status} ${response.statusText}.`);
    if (response.status === 401) options.onUnauthorized(problem);
    if (response.status === 403) options.onForbidden?.(problem);
    throw new ApiError(problem);
  }
  const bodyOf = <T,>(answer: Promise<{ body: T }>) => answer.then((a) => a.body);
  return {
    get: (path, query) => bodyOf(send('GET', withQuery(path, query))),
    post: (path, body) => bodyOf(send('POST', path, body)),
    patch: (path, body) => bodyOf(send('PATCH', path, body)),
    postForStatus: (path, body) => send('POST', path, body),
    delete: (path) => send('DELETE', path).then(() => undefined),
    getText: (path) => send('GET', path).then((answer) => answer.text),
  };
}
