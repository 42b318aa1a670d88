/** What a command prints: a table (or key/value lines) for people, the API's JSON with --json for scripts. */
export interface Output {
  json: boolean;
}

type Row = Record<string, unknown>;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function table(rows: Row[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

export function fields(row: Row, keys = Object.keys(row)): string {
  const width = Math.max(...keys.map((k) => k.length));
  return keys.map((k) => `${k.padEnd(width)}  ${cell(row[k])}`).join('\n');
}

/** Money in minor units as people read it: 12345 USD → 123.45 USD. */
export function money(minor: number | null | undefined, currency = ''): string {
  if (typeof minor !== 'number') return '-';
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}${currency ? ` ${currency}` : ''}`;
}

export function print(out: Output, value: unknown, human: () => string): void {
  process.stdout.write(`${out.json ? JSON.stringify(value, null, 2) : human()}\n`);
}

export function pageFooter(pagination: { page: number; totalPages: number; total: number } | undefined): string {
  return pagination ? `\npage ${pagination.page} of ${Math.max(1, pagination.totalPages)} (${pagination.total} in all)` : '';
}
