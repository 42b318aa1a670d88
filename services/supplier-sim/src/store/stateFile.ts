import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { snapshotSchema, SupplierState } from '../domain/state.js';

const fileName = 'state.json';

/**
 * The simulator's state on disk: one JSON file, replaced whole by writing a
 * temporary file and renaming it over the old one, so a process that dies
 * at any moment leaves either the previous state or the new one, never half
 * of each. It is not fsynced: a simulator must survive restarts, not power
 * loss, and a sync would add milliseconds to every supplier answer.
 * Writes are serialised and coalesced: every change that arrives while a
 * write runs is carried by the next one (one write for many concurrent
 * requests), and `persist()` resolves once a write containing the caller's
 * change is on disk. One process per folder.
 */
export class StateFile {
  private savedVersion: number;
  private queued: Promise<void> | undefined;
  private running: Promise<void> = Promise.resolve();
  private readonly writerId = randomBytes(6).toString('hex');

  private constructor(
    readonly path: string,
    readonly state: SupplierState,
  ) {
    this.savedVersion = state.version;
  }

  /** Reads `<dir>/state.json` (an empty state when there is none yet). */
  static async open(dir: string, maxReferences: number): Promise<StateFile> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, fileName);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return new StateFile(path, new SupplierState(maxReferences));
    }
    const parsed = snapshotSchema.safeParse(parseJson(text));
    if (!parsed.success) {
      throw new Error(`${path} is not a supplier-sim state file (${parsed.error.issues[0]?.message ?? 'invalid'}); move it away to start with an empty state`);
    }
    return new StateFile(path, SupplierState.fromSnapshot(parsed.data, maxReferences));
  }

  /** Resolves once every change made so far is on disk. */
  persist(): Promise<void> {
    if (this.state.version === this.savedVersion) return Promise.resolve();
    // A write not started yet will serialise the state as it is when it starts.
    if (this.queued) return this.queued;
    const write = this.running.then(() => {
      this.queued = undefined;
      return this.write();
    });
    this.queued = write;
    this.running = write.catch(() => undefined);
    return write;
  }

  private async write(): Promise<void> {
    const version = this.state.version;
    if (version === this.savedVersion) return;
    const text = JSON.stringify(this.state.snapshot());
    // Its own temporary name: two simulators wrongly sharing a folder overwrite each other's state, but never fail a write.
    const temporary = `${this.path}.${this.writerId}.tmp`;
    try {
      const file = await open(temporary, 'w', 0o600);
      try {
        await file.writeFile(text, 'utf8');
      } finally {
        await file.close();
      }
      await rename(temporary, this.path);
    } catch (error) {
      throw new StateWriteError(this.path, error);
    }
    this.savedVersion = version;
  }
}

/** The state could not be written (disk full, folder removed): the caller answers 503 and may retry. */
export class StateWriteError extends Error {
  constructor(path: string, cause: unknown) {
    super(`could not write ${path}`, { cause });
    this.name = 'StateWriteError';
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
