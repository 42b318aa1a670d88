/**
 * The portal token lives in this tab's sessionStorage only: never in a
 * cookie (so no other site's request carries it), gone when the tab
 * closes, and sent only by our own API client to this origin.
 */
const storageKey = 'esim.portal.session';

export interface Session {
  token: string;
  /** Epoch milliseconds; the token's own `exp` when it can be read. */
  expiresAt: number;
}

/** The `exp` claim of a JWT, in milliseconds; only read to sign out on time (the server checks the signature). */
function expiryOf(token: string): number | undefined {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export function startSession(token: string, expiresInSeconds: number): Session {
  const session = { token, expiresAt: expiryOf(token) ?? Date.now() + expiresInSeconds * 1000 };
  sessionStorage.setItem(storageKey, JSON.stringify(session));
  return session;
}

/** The stored session, or why there is none: `expired` when a token was kept past its time. */
export function storedSession(): Session | 'expired' | undefined {
  const text = sessionStorage.getItem(storageKey);
  if (!text) return undefined;
  try {
    const session = JSON.parse(text) as Session;
    if (typeof session.token !== 'string' || typeof session.expiresAt !== 'number') throw new Error('malformed');
    if (session.expiresAt <= Date.now()) {
      endSession();
      return 'expired';
    }
    return session;
  } catch {
    endSession();
    return undefined;
  }
}

export function endSession(): void {
  sessionStorage.removeItem(storageKey);
}
