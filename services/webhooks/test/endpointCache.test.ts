// Protects the webhook endpoint cache: a partner's URL and sealed secret are looked up once per TTL, never outlive a change event (even one that races a lookup), and a failed lookup is never kept.
import { describe, expect, it } from 'vitest';
import { endpointCache } from '../src/delivery/endpointCache.js';
import type { WebhookEndpoint } from '../src/domain/attemptDelivery.js';

function partnersStub() {
  let version = 1;
  const calls: string[] = [];
  const waiting: (() => void)[] = [];
  let hold = false;
  return {
    calls,
    rotate: () => void (version += 1),
    hold: (on: boolean) => void (hold = on),
    release: () => waiting.splice(0).forEach((go) => go()),
    async lookup(partnerId: string): Promise<WebhookEndpoint> {
      calls.push(partnerId);
      const answer = { url: `https://example.com/${partnerId}`, sealedSecret: `v1.secret${version}` };
      if (hold) await new Promise<void>((go) => waiting.push(go));
      return answer;
    },
  };
}

describe('endpointCache', () => {
  it('when a partner is asked for again within the TTL, then the partners service is asked once; after the TTL, again', async () => {
    const partners = partnersStub();
    let clock = 0;
    const cache = endpointCache((id) => partners.lookup(id), { ttlMs: 1_000, now: () => clock });
    await cache.get('ptn_a');
    clock = 999;
    expect(await cache.get('ptn_a')).toEqual({ url: 'https://example.com/ptn_a', sealedSecret: 'v1.secret1' });
    expect(partners.calls).toEqual(['ptn_a']);
    clock = 1_000;
    partners.rotate();
    expect((await cache.get('ptn_a')).sealedSecret).toBe('v1.secret2');
    expect(partners.calls).toEqual(['ptn_a', 'ptn_a']);
  });

  it('when the partner\'s endpoint changes, then the next get asks again and sees the new secret', async () => {
    const partners = partnersStub();
    const cache = endpointCache((id) => partners.lookup(id), { ttlMs: 60_000 });
    await cache.get('ptn_a');
    partners.rotate();
    cache.evict('ptn_a');
    expect((await cache.get('ptn_a')).sealedSecret).toBe('v1.secret2');
  });

  it('when a change arrives while a lookup is under way, then that lookup\'s answer is not kept', async () => {
    const partners = partnersStub();
    const cache = endpointCache((id) => partners.lookup(id), { ttlMs: 60_000 });
    partners.hold(true);
    const racing = cache.get('ptn_a');
    await Promise.resolve();
    partners.rotate();
    cache.evict('ptn_a');
    partners.hold(false);
    partners.release();
    expect((await racing).sealedSecret).toBe('v1.secret1');
    expect((await cache.get('ptn_a')).sealedSecret).toBe('v1.secret2');
    expect(partners.calls).toEqual(['ptn_a', 'ptn_a']);
  });

  it('when many attempts for one partner miss at once, then they share one lookup', async () => {
    const partners = partnersStub();
    const cache = endpointCache((id) => partners.lookup(id), { ttlMs: 60_000 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => cache.get('ptn_a')));
    expect(new Set(answers.map((a) => a.sealedSecret))).toEqual(new Set(['v1.secret1']));
    expect(partners.calls).toEqual(['ptn_a']);
  });

  it('when the lookup fails, then nothing is kept and the next get asks again', async () => {
    let fail = true;
    let calls = 0;
    const cache = endpointCache(
      async () => {
        calls += 1;
        if (fail) throw new Error('partners down');
        return { url: 'https://example.com', sealedSecret: 'v1.s' };
      },
      { ttlMs: 60_000 },
    );
    await expect(cache.get('ptn_a')).rejects.toThrow('partners down');
    fail = false;
    expect(await cache.get('ptn_a')).toEqual({ url: 'https://example.com', sealedSecret: 'v1.s' });
    expect(calls).toBe(2);
  });

  it('when the TTL is 0, then every get asks the partners service', async () => {
    const partners = partnersStub();
    const cache = endpointCache((id) => partners.lookup(id), { ttlMs: 0 });
    await cache.get('ptn_a');
    await cache.get('ptn_a');
    expect(partners.calls).toEqual(['ptn_a', 'ptn_a']);
  });
});
