// Protects the outbox relay's scan floor: it moves only past seqs whose writers have all ended and whose rows the relay has read, so a row committed late is never skipped.
import { describe, expect, it } from 'vitest';
import { OutboxFloor, type ClaimObservation } from '../src/outboxFloor.js';

const claim = (over: Partial<ClaimObservation>): ClaimObservation => ({ lastSeq: null, writers: [], scanned: 0, scannedMax: null, limit: 100, ...over });

describe('the outbox scan floor', () => {
  it('when the relay starts, then it scans from the start of the index', () => {
    expect(new OutboxFloor().value).toBe(0n);
  });

  it('when a later claim finds none of the earlier writers left, then the floor moves to the sequence value read before them', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: 40n, writers: ['3/7', '5/2'] }));
    expect(floor.value).toBe(0n);
    floor.observe(claim({ lastSeq: 45n, writers: ['6/1'], scanned: 3, scannedMax: 45n }));
    expect(floor.value).toBe(40n);
  });

  it('when a transaction that was writing the outbox still is, then the floor stays (its row may commit late with a lower seq)', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: 40n, writers: ['3/7', '5/2'] }));
    floor.observe(claim({ lastSeq: 60n, writers: ['5/2', '6/1'], scanned: 5, scannedMax: 60n }));
    floor.observe(claim({ lastSeq: 70n, writers: ['5/2'], scanned: 2, scannedMax: 70n }));
    expect(floor.value).toBe(0n);
    floor.observe(claim({ lastSeq: 80n, writers: ['7/9'], scanned: 1, scannedMax: 80n }));
    expect(floor.value).toBe(40n);
  });

  it('when the claim that would move the floor was full, then the floor moves no further than the last seq it read', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: 400n }));
    floor.observe(claim({ lastSeq: 400n, scanned: 100, scannedMax: 250n }));
    expect(floor.value).toBe(250n);
  });

  it('when the candidate is used up, then the next claim offers the next one and the floor keeps moving', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: 10n, writers: ['1/1'] }));
    floor.observe(claim({ lastSeq: 20n, writers: ['2/1'] }));
    expect(floor.value).toBe(10n);
    floor.observe(claim({ lastSeq: 30n }));
    expect(floor.value).toBe(20n);
  });

  it('when no seq was ever taken, then there is nothing to move the floor to', () => {
    const floor = new OutboxFloor();
    floor.observe(claim({ lastSeq: null }));
    floor.observe(claim({ lastSeq: null }));
    expect(floor.value).toBe(0n);
  });
});
