// Protects the outbox relay's scan floor: it moves only past seqs whose transactions have all ended and whose rows the relay has read, so a row committed late is never skipped.
import { describe, expect, it } from 'vitest';
import { OutboxFloor, type ClaimObservation } from '../src/outboxFloor.js';

const claim = (over: Partial<ClaimObservation>): ClaimObservation => ({ lastSeq: null, xmin: 100n, xmax: 100n, scanned: 0, scannedMax: null, limit: 100, ...over });

describe('the outbox scan floor', () => {
  it('when the relay starts, then it scans from the start of the index', () => {
    expect(new OutboxFloor().value).toBe(0n);
  });

  it('when a later claim sees every transaction below the first snapshot ended, then the floor moves to the sequence value read before it', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: 40n, xmin: 90n, xmax: 100n }));
    expect(floor.value).toBe(0n);
    floor.observe(claim({ lastSeq: 45n, xmin: 100n, xmax: 104n, scanned: 3, scannedMax: 45n }));
    expect(floor.value).toBe(40n);
  });

  it('when a transaction that was running at the first snapshot is still running, then the floor stays (its row may commit late with a lower seq)', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: 40n, xmin: 90n, xmax: 100n }));
    floor.observe(claim({ lastSeq: 60n, xmin: 95n, xmax: 120n, scanned: 5, scannedMax: 60n }));
    floor.observe(claim({ lastSeq: 70n, xmin: 99n, xmax: 130n, scanned: 2, scannedMax: 70n }));
    expect(floor.value).toBe(0n);
    floor.observe(claim({ lastSeq: 80n, xmin: 100n, xmax: 140n, scanned: 1, scannedMax: 80n }));
    expect(floor.value).toBe(40n);
  });

  it('when the claim that would move the floor was full, then the floor moves no further than the last seq it read', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: 400n, xmin: 90n, xmax: 100n }));
    floor.observe(claim({ lastSeq: 400n, xmin: 100n, xmax: 101n, scanned: 100, scannedMax: 250n }));
    expect(floor.value).toBe(250n);
  });

  it('when the candidate is used up, then the next claim offers the next one and the floor keeps moving', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: 10n, xmin: 1n, xmax: 5n }));
    floor.observe(claim({ lastSeq: 20n, xmin: 5n, xmax: 9n }));
    expect(floor.value).toBe(10n);
    floor.observe(claim({ lastSeq: 30n, xmin: 9n, xmax: 12n }));
    expect(floor.value).toBe(20n);
  });

  it('when no seq was ever taken, then there is nothing to move the floor to', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: null, xmin: 1n, xmax: 5n }));
    floor.observe(claim({ lastSeq: null, xmin: 5n, xmax: 9n }));
    expect(floor.value).toBe(0n);
  });
});
