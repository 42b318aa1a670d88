import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `var/` at the repository root: development secrets, `.eml` files, nothing committed. */
export const varDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../var');

/**
 * A development secret generated once and kept under var/secrets, so restarts
 * do not invalidate issued tokens or encrypted data. Several processes may
 * start together: the first writer wins (exclusive create) and everyone reads
 * what it wrote. Production never calls this: its secrets have no default.
 */
export function devSecret(name: string, generate: () => string): string {
  const file = join(varDir, 'secrets', name);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, generate(), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}

/**
 * Fills the named secrets from var/secrets when they are not set, outside
 * production only; in production a missing secret fails the config parse.
 */
export function withDevSecrets(env: NodeJS.ProcessEnv, generators: Record<string, () => string>): NodeJS.ProcessEnv {
  if (env.NODE_ENV === 'production') return env;
  const filled = { ...env };
  // An empty variable is unset (Compose passes `${ADMIN_TOKEN:-}` through as ''): it is generated too.
  for (const [name, generate] of Object.entries(generators)) if (!filled[name]) filled[name] = devSecret(name.toLowerCase(), generate);
  return filled;
}
