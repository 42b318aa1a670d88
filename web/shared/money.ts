/**
 * Money in the apps: the API sends and stores integer minor units (cents);
 * people read and type major units. Both directions are exact string
 * arithmetic, never floating point.
 */

/** How many minor-unit digits the currency has (USD 2, JPY 0, KWD 3), as Intl knows it. */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** 12345 with 2 digits → "123.45"; -5 → "-0.05". */
export function toDecimalString(minor: number, digits: number): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`${minor} is not a whole number of minor units`);
  const sign = minor < 0 ? '-' : '';
  const units = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${units}` : `${sign}${units.slice(0, -digits)}.${units.slice(-digits)}`;
}

/** 12345 USD → "$123.45" (in the reader's locale). */
export function formatMoney(minor: number, currency: string, locale?: string): string {
  const digits = minorDigits(currency);
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  // A decimal string is formatted exactly (Intl.NumberFormat v3).
  return format.format(toDecimalString(minor, digits) as Intl.StringNumericLiteral);
}

/**
 * "123.45" → 12345. Accepts an optional sign (when `signed`), digits and
 * at most the currency's minor digits after a point; grouping commas and
 * spaces are ignored. Anything else is null: the form says what it wants.
 */
export function parseMoney(text: string, currency: string, { signed = false } = {}): number | null {
  const digits = minorDigits(currency);
  const cleaned = text.replace(/[\s,]/g, '');
  const pattern = digits === 0 ? /^([+-]?)(\d{1,12})$/ : new RegExp(`^([+-]?)(\\d{1,12})(?:\\.(\\d{1,${digits}}))?$`);
  const match = pattern.exec(cleaned);
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match;
  if (sign === '-' && !signed) return null;
  const minor = Number(`${whole}${fraction.padEnd(digits, '0')}`);
  if (!Number.isSafeInteger(minor)) return null;
  return sign === '-' ? -minor : minor;
}

/** What a money field expects, for its hint: "e.g. 25.00". */
export function moneyExample(currency: string): string {
  return toDecimalString(2500 * 10 ** Math.max(0, minorDigits(currency) - 2), minorDigits(currency));
}
