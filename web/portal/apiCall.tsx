/**
 * The portal never places or cancels an order: those stay API-key calls
 * (contract §4), and the portal holds only the login JWT. Where a person
 * would look for the button, it shows the exact call instead, ready to
 * copy, with this page's values filled in.
 */
import { CopyButton } from '../shared/ui.js';

/** Single-quoted for a POSIX shell: `it's` → `'it'\''s'`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** This portal's own API (the gateway serves both). */
export function apiBase(): string {
  return `${window.location.origin}/api/v1`;
}

/** A curl POST with the key from the environment (`$ESIM_API_KEY`, or `$ESIM_TEST_KEY` in test mode), never a real key. */
export function curlPost(path: string, body?: unknown, keyVariable = 'ESIM_API_KEY'): string {
  const lines = [`curl -X POST ${shellQuote(`${apiBase()}${path}`)}`, `  -H "Authorization: Bearer $${keyVariable}"`];
  if (body !== undefined) lines.push(`  -H 'Content-Type: application/json'`, `  -d ${shellQuote(JSON.stringify(body, null, 2))}`);
  return lines.join(' \\\n');
}

/** A fresh idempotency key for a call the reader will copy: copying and running it twice still places one order. */
export function newClientRequestId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `${prefix}-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The call in a scrollable block (focusable, so keyboards can scroll it) with a copy button. */
export function ApiCall({ id, label, command }: { id: string; label: string; command: string }) {
  return (
    <div class="api-call">
      <pre class="snippet" tabIndex={0} aria-label={label} data-testid={id}>
        <code>{command}</code>
      </pre>
      <CopyButton text={command} label={`Copy ${label.charAt(0).toLowerCase()}${label.slice(1)}`} />
    </div>
  );
}
