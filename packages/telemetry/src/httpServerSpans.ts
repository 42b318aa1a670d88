import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';

const tracer = trace.getTracer('@esim/telemetry/http-server');

export interface ServerSpanRequest {
  method: string;
  /** The route template (`/api/v1/partner/orders/:orderId`); undefined for a request no route matched. */
  route: string | undefined;
  /** The path without its query string. */
  path: string;
  /** The caller's address, as the server trusts it (behind a proxy, the forwarded one). */
  clientAddress: string;
  raw: IncomingMessage;
}

/**
 * The server span of an incoming HTTP request, for a server that makes its
 * own (the gateway: see `tracesOwnHttpServers`). It continues the caller's
 * W3C `traceparent`, is named `<METHOD> <route>` with the stable HTTP
 * semantic-convention attributes, and `next` (the rest of the request's
 * handling) runs in its context, so every span and log line below joins it.
 * A span the sampler drops costs an id and a context switch; the attributes
 * are only gathered for a span that is recorded.
 */
export function runInServerSpan(request: ServerSpanRequest, next: () => void): Span {
  const parent = propagation.extract(ROOT_CONTEXT, request.raw.headers);
  const span = tracer.startSpan(
    request.route ? `${request.method} ${request.route}` : request.method,
    // The sampler reads the method to tell an incoming HTTP request from our own propagation (sampler.ts).
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method } },
    parent,
  );
  if (span.isRecording()) {
    const host = request.raw.headers.host ?? '';
    const port = /:(\d+)$/.exec(host)?.[1];
    span.setAttributes({
      'url.scheme': 'http',
      'url.path': request.path,
      'network.protocol.version': request.raw.httpVersion,
      'server.address': port ? host.slice(0, -port.length - 1) : host,
      ...(port ? { 'server.port': Number(port) } : {}),
      'client.address': request.clientAddress,
      ...(request.route ? { 'http.route': request.route } : {}),
      ...(request.raw.headers['user-agent'] ? { 'user_agent.original': request.raw.headers['user-agent'] } : {}),
    });
  }
  context.with(trace.setSpan(parent, span), next);
  return span;
}

/** Ends a server span with the answer's status; 5xx marks it failed, as the HTTP instrumentation does. */
export function endServerSpan(span: Span, statusCode: number | undefined): void {
  if (statusCode === undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client went away before the answer' });
  } else {
    span.setAttribute('http.response.status_code', statusCode);
    if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
