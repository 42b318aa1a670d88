// Protects the test-mode admission of orders (§14, test load never slows live): at most `concurrency` test calls run at once, the rest start in arrival order, a full queue or a deadline too close refuses before any work starts, and a failing call frees its turn.
import { describe, expect, it } from 'vitest';
import { AppError } from '@esim/errors';
import { TestModeGate } from '../src/grpc/testModeGate.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((ok, fail) => ((resolve = ok), (reject = fail)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('test-mode gate', () => {
  it('when more calls arrive than turns, then only `concurrency` run and the rest start in arrival order as turns free', async () => {
    const gate = new TestModeGate({ concurrency: 2, queueMax: 10, minRemainingMs: 0 });
    const started: number[] = [];
    const ends = Array.from({ length: 5 }, deferred);
    const calls = ends.map((end, i) => gate.run(async () => (started.push(i), end.promise)));
    await tick();
    expect(started).toEqual([0, 1]);
    ends[1]!.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    ends[0]!.resolve();
    ends[2]!.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    ends[3]!.resolve();
    ends[4]!.resolve();
    await Promise.all(calls);
  });

  it('when a call fails, then its turn passes to the next waiter', async () => {
    const gate = new TestModeGate({ concurrency: 1, queueMax: 10, minRemainingMs: 0 });
    const first = deferred();
    const failing = gate.run(() => first.promise);
    const second = gate.run(async () => 'second');
    first.reject(new Error('boom'));
    await expect(failing).rejects.toThrow('boom');
    await expect(second).resolves.toBe('second');
  });

  it('when the queue is full, then the next call is refused UNAVAILABLE without running', async () => {
    const gate = new TestModeGate({ concurrency: 1, queueMax: 1, minRemainingMs: 0 });
    const hold = deferred();
    const running = gate.run(() => hold.promise);
    const waiting = gate.run(async () => 'waited');
    let ran = false;
    const refused = gate.run(async () => void (ran = true));
    await expect(refused).rejects.toSatisfy((error: unknown) => error instanceof AppError && error.code === 'UNAVAILABLE');
    expect(ran).toBe(false);
    hold.resolve();
    await running;
    await expect(waiting).resolves.toBe('waited');
  });

  it('when a waiting call passes its deadline, then it is dropped before it starts and the queue moves on', async () => {
    const gate = new TestModeGate({ concurrency: 1, queueMax: 10, minRemainingMs: 0 });
    const hold = deferred();
    const running = gate.run(() => hold.promise);
    let ran = false;
    const late = gate.run(async () => void (ran = true), Date.now() + 20);
    const next = gate.run(async () => 'next');
    await expect(late).rejects.toSatisfy((error: unknown) => error instanceof AppError && error.code === 'UNAVAILABLE');
    hold.resolve();
    await running;
    await expect(next).resolves.toBe('next');
    expect(ran).toBe(false);
  });

  it('when a turn frees for a waiter whose deadline is closer than minRemainingMs, then it is refused and the turn goes to the next', async () => {
    const gate = new TestModeGate({ concurrency: 1, queueMax: 10, minRemainingMs: 1_000 });
    const hold = deferred();
    const running = gate.run(() => hold.promise);
    let ran = false;
    // Its timer would fire at deadline - 1 s, i.e. at once: refused without waiting for the turn.
    const tooLate = gate.run(async () => void (ran = true), Date.now() + 500);
    const inTime = gate.run(async () => 'in time', Date.now() + 60_000);
    await expect(tooLate).rejects.toSatisfy((error: unknown) => error instanceof AppError && error.code === 'UNAVAILABLE');
    hold.resolve();
    await running;
    await expect(inTime).resolves.toBe('in time');
    expect(ran).toBe(false);
  });
});
