import type { Credential, CredentialCache } from './credentialCache.js';

/** How long this replica trusts a credential without asking Redis again: the bound if an eviction message is ever missed. */
export const localTtlMs = 1_000;
/** Past this many prefixes (a caller trying random keys), the map starts over rather than grow. */
const maxEntries = 10_000;

interface Entry {
  credential: Credential | null;
  expiresAt: number;
}

/**
 * Credentials in this process's memory, in front of the Redis cache every
 * replica shares (which stays the second level and the one the partners
 * service is asked behind). A request with a known key then needs no Redis
 * round trip to authenticate. Entries live at most `localTtlMs`, and
 * `evict` (called on every replica for every `partners.credentials.changed`
 * event, see credentialEvictions.ts) drops them at once, so revocation,
 * suspension and tier changes still reach every replica within 2 s (§4).
 */
export class LocalCredentials {
  private readonly entries = new Map<string, Entry>();
  /** Lookups in flight, shared by the requests that arrive meanwhile with the same prefix. */
  private readonly pending = new Map<string, Promise<Credential | null>>();
  /** Bumped by every eviction: a lookup that started before one must not fill the map after it. */
  private generation = 0;

  constructor(
    private readonly shared: Pick<CredentialCache, 'get'>,
    private readonly ttlMs = localTtlMs,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The credential for a key prefix, or null when no key has it. */
  get(prefix: string): Promise<Credential | null> | Credential | null {
    const entry = this.entries.get(prefix);
    if (entry !== undefined && entry.expiresAt > this.now()) return entry.credential;
    return this.pending.get(prefix) ?? this.lookUp(prefix);
  }

  private lookUp(prefix: string): Promise<Credential | null> {
    const generation = this.generation;
    const lookup = Promise.resolve(this.shared.get(prefix))
      .then((credential) => {
        if (generation === this.generation) {
          if (this.entries.size >= maxEntries) this.entries.clear();
          this.entries.set(prefix, { credential, expiresAt: this.now() + this.ttlMs });
        }
        return credential;
      })
      .finally(() => {
        if (this.pending.get(prefix) === lookup) this.pending.delete(prefix);
      });
    this.pending.set(prefix, lookup);
    return lookup;
  }

  /** Forgets these prefixes; lookups already under way will not store what they find. */
  evict(prefixes: string[]): void {
    this.generation += 1;
    for (const prefix of prefixes) {
      this.entries.delete(prefix);
      this.pending.delete(prefix);
    }
  }

  /** Forgets everything (after a NATS reconnect, when eviction messages may have been missed). */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.pending.clear();
  }
}
