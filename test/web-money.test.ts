// Protects the web apps' money arithmetic: minor units shown as formatted major units and typed major units sent as exact minor units, never through a float.
import { describe, expect, it } from 'vitest';
import { formatMoney, minorDigits, parseMoney, toDecimalString } from '../web/shared/money.js';

describe('showing minor units', () => {
  it('when an amount is formatted, then it reads in major units with the currency, exactly', () => {
    expect(formatMoney(2_500, 'USD', 'en-US')).toBe('$25.00');
    expect(formatMoney(7, 'USD', 'en-US')).toBe('$0.07');
    expect(formatMoney(-100_000, 'USD', 'en-US')).toBe('-$1,000.00');
    expect(formatMoney(123_456_789_012_345, 'USD', 'en-US')).toBe('$1,234,567,890,123.45');
    expect(formatMoney(1_234_56, 'EUR', 'fr-FR')).toMatch(/^1\s234,56\s€$/);
    expect(formatMoney(500, 'JPY', 'en-US')).toBe('¥500');
    expect(formatMoney(1_500, 'KWD', 'en-US')).toMatch(/^KWD\s1\.500$/);
  });

  it('when the currency has 0, 2 or 3 minor digits, then the decimal string places the point accordingly', () => {
    expect([minorDigits('JPY'), minorDigits('USD'), minorDigits('KWD')]).toEqual([0, 2, 3]);
    expect(toDecimalString(5, 2)).toBe('0.05');
    expect(toDecimalString(-5, 2)).toBe('-0.05');
    expect(toDecimalString(12_345, 0)).toBe('12345');
    expect(() => toDecimalString(1.5, 2)).toThrow(RangeError);
  });
});

describe('reading typed amounts', () => {
  it('when a valid amount is typed, then it becomes exact minor units', () => {
    expect(parseMoney('25', 'USD')).toBe(2_500);
    expect(parseMoney('25.5', 'USD')).toBe(2_550);
    expect(parseMoney(' 1,000.07 ', 'USD')).toBe(100_007);
    // 0.1 + 0.2 style float errors cannot happen: 4.35 × 100 is 434.99999999999994 in floating point.
    expect(parseMoney('4.35', 'USD')).toBe(435);
    expect(parseMoney('-1,000.00', 'USD', { signed: true })).toBe(-100_000);
    expect(parseMoney('1500', 'JPY')).toBe(1_500);
    expect(parseMoney('1.5', 'KWD')).toBe(1_500);
  });

  it('when the text is not an amount of that currency, then null, so the form asks again', () => {
    for (const text of ['', 'abc', '1.234', '1e3', '.5', '1.', '--1', '1,00.0.0']) expect(parseMoney(text, 'USD'), text).toBeNull();
    expect(parseMoney('-5', 'USD')).toBeNull();
    expect(parseMoney('1.5', 'JPY')).toBeNull();
    expect(parseMoney('9999999999999', 'USD')).toBeNull();
  });
});
