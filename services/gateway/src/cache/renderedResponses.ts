/** How long a rendered page is served before it is rendered again even without a change: the bound for changes nobody announced. */
export const renderedTtlMs = 5_000;
/** After a change event, pages are rendered again once more this long after it, once every replica of the backend has reloaded. */
export const settleMs = 1_000;
/** Past this many bytes the cache starts over rather than grow (every page of every tier is far less). */
const maxBytes = 16 * 2 ** 20;

interface Entry {
  body: Buffer;
  expiresAt: number;
}

/**
 * Response bodies rendered once and sent many times: JSON already encoded,
 * per key (what the answer depends on) and per version (see
 * CatalogVersion). A request that carries an older version than the
 * newest seen is rendered for itself and not stored; a newer version drops
 * everything stored. Concurrent requests for the same missing key share one
 * rendering.
 */
export class RenderedResponses {
  private entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Buffer>>();
  private version = -1;
  private bytes = 0;
  /** Bumped by `changed`: a rendering that started before it is not stored. */
  private generation = 0;
  private unsettledUntil = 0;

  constructor(
    private readonly ttlMs = renderedTtlMs,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(version: number, key: string, render: () => Promise<Buffer>): Promise<Buffer> | Buffer {
    if (version > this.version) {
      this.version = version;
      this.drop();
    } else if (version < this.version) {
      return render();
    }
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.expiresAt > this.now()) return entry.body;
    return this.pending.get(key) ?? this.fill(key, render);
  }

  /** A change was announced (an event): drop everything now, and what is rendered in the next moments soon again. */
  changed(): void {
    this.unsettledUntil = this.now() + settleMs;
    this.drop();
  }

  private fill(key: string, render: () => Promise<Buffer>): Promise<Buffer> {
    const generation = this.generation;
    const rendering = render()
      .then((body) => {
        if (generation === this.generation) {
          if (this.bytes + body.length > maxBytes) this.drop();
          const now = this.now();
          this.entries.set(key, { body, expiresAt: now < this.unsettledUntil ? this.unsettledUntil : now + this.ttlMs });
          this.bytes += body.length;
        }
        return body;
      })
      .finally(() => {
        if (this.pending.get(key) === rendering) this.pending.delete(key);
      });
    this.pending.set(key, rendering);
    return rendering;
  }

  private drop(): void {
    this.generation += 1;
    this.entries = new Map();
    this.pending.clear();
    this.bytes = 0;
  }
}
