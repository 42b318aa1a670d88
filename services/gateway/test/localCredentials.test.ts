// Protects the gateway's in-memory credential cache: a changed key (revoked, suspended, re-tiered) is never served from memory after its eviction, and memory never keeps a credential longer than its short life.
import { describe, expect, it } from 'vitest';
import type { Credential } from '../src/auth/credentialCache.js';
import { LocalCredentials } from '../src/auth/localCredentials.js';

const credential = (tier: Credential['tier'], revoked = false): Credential => ({
  keyId: 'key_1',
  partnerId: 'ptn_1',
  secretHash: 'ab'.repeat(32),
  scopes: ['catalog:read'],
  revoked,
  partnerStatus: 'approved',
  livemode: true,
  tier,
});

/** A Redis stand-in whose answers the test sets, counting lookups; `hold` keeps the next lookup pending until released. */
function sharedCache(initial: Credential | null) {
  let current = initial;
  let gate: Promise<void> | undefined;
  const shared = {
    lookups: 0,
    set: (next: Credential | null) => void (current = next),
    hold() {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return release;
    },
    async get(): Promise<Credential | null> {
      shared.lookups += 1;
      const answer = current;
      if (gate) await gate;
      return answer;
    },
  };
  return shared;
}

describe('LocalCredentials', () => {
  it('when a prefix is asked twice within its life, then the shared cache is asked once', async () => {
    const shared = sharedCache(credential('standard'));
    const local = new LocalCredentials(shared, 1_000);
    expect(await local.get('abc')).toEqual(credential('standard'));
    expect(await local.get('abc')).toEqual(credential('standard'));
    expect(shared.lookups).toBe(1);
  });

  it('when many requests miss the same prefix at once, then one lookup serves them all', async () => {
    const shared = sharedCache(credential('standard'));
    const local = new LocalCredentials(shared, 1_000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => local.get('abc')));
    expect(answers.every((a) => a?.tier === 'standard')).toBe(true);
    expect(shared.lookups).toBe(1);
  });

  it('when the entry has outlived its time, then the shared cache is asked again and its new answer served', async () => {
    let now = 0;
    const shared = sharedCache(credential('standard'));
    const local = new LocalCredentials(shared, 1_000, () => now);
    await local.get('abc');
    shared.set(credential('premium'));
    now = 999;
    expect((await local.get('abc'))?.tier).toBe('standard');
    now = 1_000;
    expect((await local.get('abc'))?.tier).toBe('premium');
  });

  it('when a prefix is evicted, then the next request reads the shared cache again', async () => {
    const shared = sharedCache(credential('standard'));
    const local = new LocalCredentials(shared, 60_000);
    await local.get('abc');
    shared.set(credential('standard', true));
    local.evict(['abc']);
    expect((await local.get('abc'))?.revoked).toBe(true);
  });

  it('when an eviction arrives while a lookup is under way, then what that lookup found is not kept', async () => {
    const shared = sharedCache(credential('standard'));
    const local = new LocalCredentials(shared, 60_000);
    const release = shared.hold();
    const inFlight = local.get('abc');
    // The revocation lands after the lookup read the old credential, before it answered.
    shared.set(credential('standard', true));
    local.evict(['abc']);
    release();
    expect((await inFlight)?.revoked).toBe(false);
    expect((await local.get('abc'))?.revoked).toBe(true);
  });

  it('when everything is cleared (a NATS reconnect), then every prefix is read again', async () => {
    const shared = sharedCache(credential('standard'));
    const local = new LocalCredentials(shared, 60_000);
    await local.get('abc');
    await local.get('def');
    local.clear();
    await local.get('abc');
    await local.get('def');
    expect(shared.lookups).toBe(4);
  });

  it('when a prefix names no key, then null is kept for its life too', async () => {
    const shared = sharedCache(null);
    const local = new LocalCredentials(shared, 1_000);
    expect(await local.get('nope')).toBeNull();
    expect(await local.get('nope')).toBeNull();
    expect(shared.lookups).toBe(1);
  });

  it('when the shared cache fails, then the failure reaches the caller and nothing is kept', async () => {
    let fail = true;
    const local = new LocalCredentials(
      {
        get: async () => {
          if (fail) throw new Error('redis down');
          return credential('standard');
        },
      },
      60_000,
    );
    await expect(Promise.resolve(local.get('abc'))).rejects.toThrow('redis down');
    fail = false;
    expect((await local.get('abc'))?.tier).toBe('standard');
  });
});
