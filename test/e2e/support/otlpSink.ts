import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ExportedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
}

interface OtlpJson {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{ spans?: Array<{ name: string; traceId: string; spanId: string; parentSpanId?: string; attributes?: Array<{ key: string; value: Record<string, unknown> }> }> }>;
  }>;
}

/** An OTLP/HTTP JSON receiver: the services export their spans here during the suite. */
export async function startOtlpSink(): Promise<{ url: string; spans: ExportedSpan[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpJson;
        for (const resource of body.resourceSpans ?? []) {
          const service = resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                service,
                name: span.name,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]])),
              });
            }
          }
        }
      } catch {
        // protobuf or garbage: ignored, the suite exports JSON
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
