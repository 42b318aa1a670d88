// Protects the gateway's request spans (made by the gateway itself, not the HTTP instrumentation): one server span per request in the caller's trace, named by its route with its status, parent of the calls it makes, and none for probes.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, call, control, onboardPartner, platform, until } from './support/client.js';

interface Span {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
}

const spansOf = async (traceId: string) => (await control<Span[]>(`/spans?traceId=${traceId}`)).body;
const traceparent = (traceId: string, parent: string) => `00-${traceId}-${parent}-01`;

describe('gateway request spans', () => {
  it('when a partner reads the catalog with a traceparent, then the gateway records one server span for it, child of the caller, named by the route, with the status, parent of its Redis calls', async () => {
    const partner = await onboardPartner();
    const traceId = randomBytes(16).toString('hex');
    const caller = randomBytes(8).toString('hex');
    const answer = await api('/partner/catalog?country=FR&limit=1', { headers: { authorization: `Bearer ${partner.apiKey}`, traceparent: traceparent(traceId, caller) } });
    expect(answer.status).toBe(200);

    const spans = await until(async () => {
      const found = (await spansOf(traceId)).filter((s) => s.service === 'gateway');
      return found.some((s) => s.parentSpanId === caller) && found.length >= 2 ? found : undefined;
    }, 'the gateway spans of the catalog call');
    const servers = spans.filter((s) => s.parentSpanId === caller);
    expect(servers).toHaveLength(1);
    const server = servers[0]!;
    expect(server.name).toBe('GET /api/v1/partner/catalog');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/api/v1/partner/catalog',
      'url.path': '/api/v1/partner/catalog',
      'http.response.status_code': 200,
    });
    // The key's rate-limit count (and the catalog version) ran inside the request's span.
    const children = spans.filter((s) => s.parentSpanId === server.spanId);
    expect(children.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(spans)).not.toContain(partner.apiKey);
  });

  it('when a call is refused with 401, then its span carries the status; when /healthz is probed, then no span is made', async () => {
    const traceId = randomBytes(16).toString('hex');
    const refused = await api('/partner/catalog', { headers: { traceparent: traceparent(traceId, randomBytes(8).toString('hex')) } });
    expect(refused.status).toBe(401);
    const [span] = await until(async () => {
      const found = (await spansOf(traceId)).filter((s) => s.service === 'gateway');
      return found.length > 0 ? found : undefined;
    }, 'the span of the refused call');
    expect(span!.attributes['http.response.status_code']).toBe(401);

    const probeTrace = randomBytes(16).toString('hex');
    expect((await call(platform.publicUrl, '/healthz', { headers: { traceparent: traceparent(probeTrace, randomBytes(8).toString('hex')) } })).status).toBe(200);
    // A later traced call is exported after the probe would have been: once it is in, the probe had its chance.
    const marker = randomBytes(16).toString('hex');
    await api('/partner/catalog', { headers: { traceparent: traceparent(marker, randomBytes(8).toString('hex')) } });
    await until(async () => ((await spansOf(marker)).length > 0 ? true : undefined), 'a later call to be exported');
    expect(await spansOf(probeTrace)).toEqual([]);
  });
});
