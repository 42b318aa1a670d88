// Protects the id format of contract §3 (a type prefix and a lower-case ULID) and that ids sort in the order they were made.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isId, newId } from '../src/index.js';

const crockford = '0123456789abcdefghjkmnpqrstvwxyz';
const timeOf = (id: string) => [...id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11)].reduce((ms, char) => ms * 32 + crockford.indexOf(char), 0);

// Ids are monotonic per process: fake clocks run ahead of every id made before them.
const later = (hours: number) => new Date(Math.ceil(Date.now() / 1000) * 1000 + hours * 3_600_000);

afterEach(() => {
  vi.useRealTimers();
});

describe('newId', () => {
  it('when an id is made, then it is the prefix, an underscore and 26 Crockford base32 characters that isId accepts', () => {
    const id = newId('ord');
    expect(id).toMatch(/^ord_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(isId('ord', id)).toBe(true);
    expect(isId('ptn', id)).toBe(false);
  });

  it('when an id is made, then its first ten characters are the current time in milliseconds', () => {
    const before = Date.now();
    const id = newId('req');
    expect(timeOf(id)).toBeGreaterThanOrEqual(before);
    expect(timeOf(id)).toBeLessThanOrEqual(Date.now());
  });

  it('when many ids are made in the same millisecond, then they are all different and sort in the order they were made', () => {
    const now = later(1);
    vi.useFakeTimers({ now, toFake: ['Date'] });
    const ids = Array.from({ length: 10_000 }, () => newId('evt'));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids.map(timeOf))).toEqual(new Set([now.getTime()]));
  });

  it('when the clock steps back, then the next ids still sort after the earlier ones', () => {
    vi.useFakeTimers({ now: later(3), toFake: ['Date'] });
    const first = newId('led');
    vi.setSystemTime(later(2));
    const second = newId('led');
    expect(second > first).toBe(true);
  });

  it('when a hundred thousand ids are made across milliseconds, then none repeats', () => {
    const ids = new Set(Array.from({ length: 100_000 }, () => newId('key')));
    expect(ids.size).toBe(100_000);
  });
});

describe('isId', () => {
  it.each([
    ['a wrong prefix', 'ptn_01jd4x5y6z7a8b9c0d1e2f3g4h'],
    ['upper case', 'ord_01JD4X5Y6Z7A8B9C0D1E2F3G4H'],
    ['a letter Crockford leaves out (u)', 'ord_01jd4x5y6z7a8b9c0d1e2f3g4u'],
    ['one character short', 'ord_01jd4x5y6z7a8b9c0d1e2f3g4'],
  ])('when the value has %s, then it is not an order id', (_label, value) => {
    expect(isId('ord', value)).toBe(false);
  });
});
