import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, open, readFile, rename, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { journalLineSchema, snapshotSchema, SupplierState, type Changes, type JournalLine, type Snapshot } from '../domain/state.js';

const fileName = 'state.json';
const journalName = 'journal.ndjson';
/** Below this the journal is never compacted, however small the snapshot: tiny states would otherwise snapshot on nearly every write. */
const minJournalSize = 256 * 1024;

/**
 * The simulator's state on disk: a snapshot (`state.json`, the whole state
 * with the change count it contains) and a journal after it
 * (`journal.ndjson`, one line per write: the change count, the eSIMs
 * forgotten, every eSIM touched whole, the outbox whole when it changed).
 * A write appends one line, so it costs what changed, not the whole state.
 * Once the journal is larger than the snapshot (and past a floor), the next
 * write is a snapshot again, written to a temporary file and renamed over
 * the old one, and only then is the journal emptied; the first write after
 * a start and after any failed write is a snapshot too, so a line never
 * follows a torn one. On open, journal lines at or below the snapshot's
 * count are already in it (a death between the rename and the emptying)
 * and a last line without its newline is ignored: its write never finished,
 * so no caller was told it was saved. A process that dies at any moment
 * thus leaves either the previous state or the new one, never half of each.
 * Nothing is fsynced: a simulator must survive restarts, not power loss,
 * and a sync would add milliseconds to every supplier answer.
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
  private snapshotNeeded = true;
  // In characters: the two only compare with each other.
  private snapshotSize = 0;
  private journalSize = 0;

  private constructor(
    readonly path: string,
    private readonly journalPath: string,
    readonly state: SupplierState,
  ) {
    this.savedVersion = state.version;
  }

  /** Reads `<dir>/state.json` and the journal after it (an empty state when there is neither yet). */
  static async open(dir: string, maxReferences: number): Promise<StateFile> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, fileName);
    const text = await readIfThere(path);
    let snapshot: Snapshot = { version: 1, changes: 0, esims: [], outbox: [] };
    if (text !== undefined) {
      const parsed = snapshotSchema.safeParse(parseJson(text));
      if (!parsed.success) {
        throw new Error(`${path} is not a supplier-sim state file (${parsed.error.issues[0]?.message ?? 'invalid'}); move it away to start with an empty state`);
      }
      snapshot = parsed.data;
    }
    const journalPath = join(dir, journalName);
    const journal = readJournal(journalPath, (await readIfThere(journalPath)) ?? '');
    return new StateFile(path, journalPath, SupplierState.fromSnapshot(snapshot, maxReferences, journal));
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
    // Taken before the first await: changes made while this write runs belong to the next one.
    const changes = this.state.takeChanges();
    const snapshot = this.snapshotNeeded || changes.everything || this.journalSize > Math.max(this.snapshotSize, minJournalSize);
    try {
      if (snapshot) await this.writeSnapshot();
      else await this.append(changes);
    } catch (error) {
      // What was taken is lost to the journal, and a failed append may have left half a line: only a snapshot carries on safely.
      this.snapshotNeeded = true;
      throw new StateWriteError(snapshot ? this.path : this.journalPath, error);
    }
    this.savedVersion = version;
  }

  private async writeSnapshot(): Promise<void> {
    const text = JSON.stringify(this.state.snapshot());
    // Its own temporary name: two simulators wrongly sharing a folder overwrite each other's state, but never fail a write.
    const temporary = `${this.path}.${this.writerId}.tmp`;
    const file = await open(temporary, 'w', 0o600);
    try {
      await file.writeFile(text, 'utf8');
    } finally {
      await file.close();
    }
    await rename(temporary, this.path);
    // The snapshot holds every line: emptied only now, a death in between leaves lines the next open skips by their count.
    await truncateIfThere(this.journalPath);
    this.snapshotNeeded = false;
    this.snapshotSize = text.length;
    this.journalSize = 0;
  }

  private async append(changes: Changes): Promise<void> {
    const line: JournalLine = {
      changes: changes.changes,
      removed: changes.removed,
      esims: changes.esims,
      ...(changes.outbox ? { outbox: changes.outbox } : {}),
    };
    const text = `${JSON.stringify(line)}\n`;
    // Opened per write, not held: a removed folder must fail the write (503), not vanish into an unlinked file.
    await appendFile(this.journalPath, text, { encoding: 'utf8', mode: 0o600 });
    this.journalSize += text.length;
  }
}

/** The state could not be written (disk full, folder removed): the caller answers 503 and may retry. */
export class StateWriteError extends Error {
  constructor(path: string, cause: unknown) {
    super(`could not write ${path}`, { cause });
    this.name = 'StateWriteError';
  }
}

/** The journal's complete lines; a last line without its newline was never acknowledged and is dropped. */
function readJournal(path: string, text: string): JournalLine[] {
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  const lines: JournalLine[] = [];
  for (const [index, raw] of complete.split('\n').entries()) {
    if (raw === '') continue;
    const parsed = journalLineSchema.safeParse(parseJson(raw));
    if (!parsed.success) {
      throw new Error(`${path} line ${index + 1} is not a supplier-sim journal line (${parsed.error.issues[0]?.message ?? 'invalid'}); move the folder away to start with an empty state`);
    }
    lines.push(parsed.data);
  }
  return lines;
}

async function readIfThere(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return undefined;
  }
}

async function truncateIfThere(path: string): Promise<void> {
  try {
    await truncate(path, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
