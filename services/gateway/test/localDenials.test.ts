// Protects the gateway's local rate-limit denial: a key Redis refused is refused here until its window resets and not a moment longer, so a replica never refuses what Redis would let through, and the memory it keeps is bounded.
import { describe, expect, it } from 'vitest';
import { LocalDenials } from '../src/auth/localDenials.js';

function clock(start = 1_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('local rate-limit denials', () => {
  it('when Redis has not refused a key, then it is not denied locally', () => {
    const denials = new LocalDenials(10, clock().now);
    expect(denials.msBeforeReset('key_1')).toBe(0);
  });

  it('when Redis refused a key, then it is denied until the window resets, counted from when the refused request was sent', () => {
    const time = clock();
    const denials = new LocalDenials(10, time.now);
    const sentAt = time.now();
    time.advance(3); // the round trip: Redis's window ends 800 ms after it answered, so no later than sentAt + 800
    denials.deny('key_1', sentAt, 800);
    expect(denials.msBeforeReset('key_1')).toBe(797);
    expect(denials.msBeforeReset('key_2')).toBe(0);
    time.advance(796);
    expect(denials.msBeforeReset('key_1')).toBe(1);
    time.advance(1);
    expect(denials.msBeforeReset('key_1')).toBe(0);
  });

  it('when Redis answers a window with no time left (or no expiry), then nothing is denied locally', () => {
    const time = clock();
    const denials = new LocalDenials(10, time.now);
    denials.deny('key_1', time.now(), 0);
    denials.deny('key_2', time.now(), -1);
    expect(denials.msBeforeReset('key_1')).toBe(0);
    expect(denials.msBeforeReset('key_2')).toBe(0);
  });

  it('when the map is full, then expired keys make room, and with none expired a new key keeps asking Redis', () => {
    const time = clock();
    const denials = new LocalDenials(2, time.now);
    denials.deny('a', time.now(), 100);
    denials.deny('b', time.now(), 1_000);
    denials.deny('c', time.now(), 1_000);
    expect(denials.msBeforeReset('c')).toBe(0);
    time.advance(100);
    denials.deny('c', time.now(), 1_000);
    expect(denials.msBeforeReset('c')).toBe(1_000);
    expect(denials.msBeforeReset('b')).toBe(900);
  });
});
