import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * scrypt, memory-hard, from node:crypto (no native addon). The stored form
 * carries its parameters, `scrypt$<N>$<r>$<p>$<salt>$<hash>`, so the cost can
 * rise later without invalidating existing hashes.
 */
const keyLength = 32;

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, cost, 8, 1);
  return ['scrypt', cost, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algorithm, N, r, p, salt, hash] = stored.split('$');
  if (algorithm !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(N), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Spends the same time as a real check, so an unknown e-mail is not told apart by latency. */
let decoy: string | undefined;
export async function burnPasswordCheck(password: string, cost: number): Promise<void> {
  decoy ??= await hashPassword('decoy-password-never-matches', cost);
  await verifyPassword(password, decoy);
}
