// Protects §3's per-key rate limit across gateway replicas: the count is shared, so two replicas together let a key through exactly its limit in a window, not the limit each (the suite runs with RATE_LIMIT_PER_KEY=100/10s).
import { describe, expect, it } from 'vitest';
import { call, control, onboardPartner, platform, withKey, type Answer } from './support/client.js';

const limit = 100;

describe('rate limit across replicas', () => {
  it('when a key calls two gateway replicas in turn, then together they answer exactly the limit with 200, each remaining count once, and 429 RATE_LIMITED after', async () => {
    const replica = await control<{ publicUrl: string }>('/replicas/gateway', 'POST');
    expect(replica.status, replica.text).toBe(200);
    const gateways = [platform.publicUrl, replica.body.publicUrl];
    const partner = await onboardPartner();

    // 150 calls, ten at a time, alternating between the replicas: well inside one 10 s window.
    const answers: Array<{ gateway: string; answer: Answer }> = [];
    for (let batch = 0; batch < 15; batch += 1) {
      const calls = Array.from({ length: 10 }, async (_, i) => {
        const gateway = gateways[i % 2]!;
        return { gateway, answer: await call(gateway, '/api/v1/partner/catalog?limit=1', withKey(partner.apiKey)) };
      });
      answers.push(...(await Promise.all(calls)));
    }

    const ok = answers.filter((a) => a.answer.status === 200);
    const refused = answers.filter((a) => a.answer.status !== 200);
    expect(ok).toHaveLength(limit);
    // Both replicas counted into the same window: every remaining count from 99 down to 0 was handed out once.
    const remaining = ok.map((a) => Number(a.answer.headers['ratelimit-remaining'])).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: limit }, (_, i) => i));
    for (const gateway of gateways) expect(ok.some((a) => a.gateway === gateway)).toBe(true);

    expect(refused).toHaveLength(50);
    for (const { answer } of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body.code).toBe('RATE_LIMITED');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(answer.headers['ratelimit-limit']).toBe(String(limit));
    }
    for (const gateway of gateways) expect(refused.some((a) => a.gateway === gateway)).toBe(true);
  });
});
