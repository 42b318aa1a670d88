import { AppError, type FieldError } from '@esim/errors';

/**
 * Postgres text cannot hold U+0000: a NUL that reached a service would fail
 * its query and answer 500 for what is a client's malformed input. The HTTP
 * layer refuses it first, in one place, for the body and the URL (found by
 * the fuzz suite, issue #17).
 */
const nulMessage = 'must not contain the NUL character (U+0000)';

function nulPaths(value: unknown, path: string, found: FieldError[]): void {
  if (found.length >= 10) return;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push({ path: path || 'body', message: nulMessage });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => nulPaths(item, path ? `${path}.${i}` : String(i), found));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) found.push({ path: here, message: `name ${nulMessage}` });
      nulPaths(item, here, found);
    }
  }
}

/** A parsed JSON body with a NUL anywhere (values or keys) is a validation error naming each place. */
export function refuseNulInBody(text: string, parsed: unknown): AppError | undefined {
  // The walk only runs when the text can hold one: a raw NUL or its JSON escape.
  if (!text.includes('\u0000') && !/\\u0000/i.test(text)) return undefined;
  const found: FieldError[] = [];
  nulPaths(parsed, '', found);
  return found.length === 0 ? undefined : new AppError('VALIDATION_ERROR', found.map((e) => `${e.path}: ${e.message}`).join('; '), { errors: found });
}

/** `%00` in the path names no resource (404, as any malformed id); in the query it is a bad parameter (400). */
export function refuseNulInUrl(url: string): AppError | undefined {
  const at = url.search(/%00/i);
  if (at === -1) return undefined;
  const query = url.indexOf('?');
  if (query === -1 || at < query) return new AppError('NOT_FOUND', 'No such resource.');
  return new AppError('VALIDATION_ERROR', `The query ${nulMessage}.`, { errors: [{ path: 'query', message: nulMessage }] });
}
