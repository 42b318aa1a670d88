import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { HashingPool } from './hashingPool.js';

/**
 * scrypt, memory-hard, from node:crypto (no native addon). The stored form
 * carries its parameters, `scrypt$<N>$<r>$<p>$<salt>$<hash>`, so the cost can
 * rise later without invalidating existing hashes (`needsRehash` tells login
 * to upgrade an older hash). Every derivation runs through the hashing pool.
 */
const keyLength = 32;

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(pool: HashingPool, password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const hash = await pool.run(() => derive(password, salt, cost, 8, 1));
  return ['scrypt', cost, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(pool: HashingPool, password: string, stored: string): Promise<boolean> {
  const [algorithm, N, r, p, salt, hash] = stored.split('$');
  if (algorithm !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await pool.run(() => derive(password, Buffer.from(salt, 'base64'), Number(N), Number(r), Number(p)));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** True when the stored hash was made at a lower cost than today's: login re-hashes it with the password it just checked. */
export function needsRehash(stored: string, cost: number): boolean {
  const [algorithm, N, r, p] = stored.split('$');
  return algorithm !== 'scrypt' || Number(N) < cost || Number(r) !== 8 || Number(p) !== 1;
}

/** Spends the same time as a real check, so an unknown e-mail is not told apart by latency; bounded by the same pool. */
let decoy: string | undefined;
export async function burnPasswordCheck(pool: HashingPool, password: string, cost: number): Promise<void> {
  decoy ??= ['scrypt', cost, 8, 1, randomBytes(16).toString('base64'), randomBytes(keyLength).toString('base64')].join('$');
  await verifyPassword(pool, password, decoy);
}
