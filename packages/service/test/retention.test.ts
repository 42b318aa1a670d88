// Protects the shared retention job (§11): each rule is applied in bounded batches until a short one, a run stops after maxBatches, and a stop ends the run in flight after its statement.
import { createLogger } from '@esim/telemetry';
import { describe, expect, it } from 'vitest';
import { runRetention, startRetention, type RetentionRule } from '../src/retention.js';
import type { Pool, Queryable } from '@esim/postgres';

/** A table of `rows` expired rows; each prune takes up to `batch` of them and records the batch size asked for. */
function fakeTable(table: string, rows: number, onPrune?: () => void): RetentionRule & { left(): number; calls: number[] } {
  let left = rows;
  const calls: number[] = [];
  return {
    table,
    calls,
    left: () => left,
    async prune(_db: Queryable, batch: number) {
      calls.push(batch);
      onPrune?.();
      const n = Math.min(batch, left);
      left -= n;
      return n;
    },
  };
}

const db = {} as Queryable;

describe('runRetention', () => {
  it('when a table holds more than a batch, then batches follow until a short one, and every rule runs', async () => {
    const a = fakeTable('a', 12);
    const b = fakeTable('b', 0);
    expect(await runRetention(db, [a, b], { batch: 5 })).toEqual({ a: 12, b: 0 });
    expect(a.calls).toEqual([5, 5, 5]);
    expect(b.calls).toEqual([5]);
  });

  it('when the backlog exceeds maxBatches × batch, then one run deletes that much and the next run goes on', async () => {
    const a = fakeTable('a', 25);
    expect(await runRetention(db, [a], { batch: 5, maxBatches: 2 })).toEqual({ a: 10 });
    expect(a.left()).toBe(15);
    expect(await runRetention(db, [a], { batch: 5, maxBatches: 2 })).toEqual({ a: 10 });
    expect(a.left()).toBe(5);
  });

  it('when the signal is aborted during a run, then it ends after the statement in flight', async () => {
    const aborter = new AbortController();
    const a = fakeTable('a', 100, () => aborter.abort());
    const b = fakeTable('b', 100);
    expect(await runRetention(db, [a, b], { batch: 5, signal: aborter.signal })).toEqual({ a: 5, b: 0 });
    expect(b.calls).toEqual([]);
  });
});

describe('startRetention', () => {
  it('when stopped while a run is under way, then stop waits for its statement and the run goes no further', async () => {
    let release: () => void = () => {};
    let statements = 0;
    const slow: RetentionRule = {
      table: 'slow',
      prune: async (_db, batch) => {
        statements += 1;
        await new Promise<void>((resolve) => (release = resolve));
        return batch;
      },
    };
    const job = startRetention({ pool: {} as Pool, logger: createLogger('retention-test', 'silent'), rules: [slow], everyMs: 3_600_000, batch: 5 });
    const run = job.runOnce();
    await new Promise((r) => setImmediate(r));
    const stopped = job.stop();
    release();
    await stopped;
    expect(await run).toEqual({ slow: 5 });
    expect(statements).toBe(1);
    await job.stop();
  });
});
