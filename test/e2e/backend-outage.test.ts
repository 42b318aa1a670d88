// Protects §1's promise for a backend outage: the gateway stays ready and serves everything else, the dead backend's routes answer 503 UNAVAILABLE at once, and all recovers when it is back.
import { describe, expect, it } from 'vitest';
import { admin, api, asKey, call, control, expectProblem, onboardPartner, platform, portalToken, until, withToken } from './support/client.js';

describe('a backend service is down', () => {
  it('when the catalog service is killed, then readyz stays 200, catalog routes answer 503 UNAVAILABLE, other routes serve; when it is back, catalog routes recover', async () => {
    const partner = await onboardPartner();
    const token = await portalToken(partner.email, partner.password);
    expect((await asKey(partner.apiKey, '/partner/catalog?limit=1')).status).toBe(200);

    await control('/services/catalog/kill?signal=SIGKILL', 'POST');
    try {
      // The kill is synchronous; the first call after it may still find the old channel closing.
      const refused = await until(async () => {
        const answer = await asKey(partner.apiKey, '/partner/catalog?limit=1');
        return answer.status === 503 ? answer : undefined;
      }, 'catalog routes to answer 503');
      expectProblem(refused, 503, 'UNAVAILABLE');
      expectProblem(await api('/partner/me/catalog?limit=1', withToken(token)), 503, 'UNAVAILABLE');
      expectProblem(await admin('/plans?limit=1'), 503, 'UNAVAILABLE');

      for (const base of [platform.publicUrl, platform.adminUrl]) {
        const ready = await call(base, '/readyz');
        expect(ready.status).toBe(200);
        expect(ready.body).toEqual({ status: 'ready', checks: { redis: 'ok', nats: 'ok' } });
      }
      // Routes of the services that are up keep working.
      expect((await api('/partner/me', withToken(token))).status).toBe(200);
      expect((await admin(`/partners/${partner.id}/keys`)).status).toBe(200);
    } finally {
      await control('/services/catalog/start', 'POST');
    }
    await until(
      async () => ((await asKey(partner.apiKey, '/partner/catalog?limit=1')).status === 200 ? true : undefined),
      'catalog routes to answer 200 again',
      30_000,
    );
    expect((await admin('/plans?limit=1')).status).toBe(200);
  });
});
