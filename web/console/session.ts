/**
 * The operator token (or the admin token) and an optional note live in this tab's
 * sessionStorage only: never in a cookie, gone when the tab closes, and
 * sent only by the console's API client to this (admin) origin.
 */
const storageKey = 'esim.console.session';

export interface Session {
  token: string;
  /** An optional note sent as X-Operator; the audit log's actor is the token's operator (§10). */
  operator: string;
  /** Who the token belongs to, from GET /operators/me at sign-in. */
  id?: string;
  email?: string | null;
  role?: 'viewer' | 'support' | 'finance' | 'admin';
}

/** What the gateway accepts as X-Operator (printable ASCII, at most 100): anything else would be dropped from the audit log. */
export const operatorPattern = '[\\x20-\\x7E]{1,100}';

export function storedSession(): Session | undefined {
  try {
    const session = JSON.parse(sessionStorage.getItem(storageKey) ?? 'null') as Session | null;
    return session && typeof session.token === 'string' && typeof session.operator === 'string' ? session : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(storageKey, JSON.stringify(session));
}

export function endSession(): void {
  sessionStorage.removeItem(storageKey);
}

export function sessionHeaders(session: Session): Record<string, string> {
  return { authorization: `Bearer ${session.token}`, ...(session.operator ? { 'x-operator': session.operator } : {}) };
}
