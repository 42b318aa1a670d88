import { Metadata, status } from '@grpc/grpc-js';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';

/**
 * The spans of our unary calls and the trace context they carry, made here
 * rather than by OpenTelemetry's gRPC instrumentation: that one wrapped every
 * call (span, listeners, metadata capture, callback binding) whether or not
 * its trace was recorded, about a third of tracing's cost per order
 * (docs/benchmarks.md, "Lever: instrumentation that costs nothing for unsampled calls"). Here a call whose trace is not recorded
 * only carries its `traceparent` (so an unsampled trace stays unsampled
 * downstream and a sampled one stays whole); a recorded one gets the spans
 * the instrumentation made, same names and attributes.
 */
const tracer = trace.getTracer('@esim/grpc');

const setter: TextMapSetter<Metadata> = { set: (metadata, key, value) => metadata.set(key, value) };
const getter: TextMapGetter<Metadata> = {
  get: (metadata, key) => {
    const values = metadata.get(key);
    return values.length === 0 ? undefined : values.length === 1 ? String(values[0]) : values.map(String);
  },
  keys: (metadata) => Object.keys(metadata.getMap()),
};

/** A method's span name and attributes, built once per method rather than per call. */
export interface TracedMethod {
  spanName: string;
  attributes: { 'rpc.system': 'grpc'; 'rpc.service': string; 'rpc.method': string };
}

export function tracedMethod(serviceTypeName: string, methodName: string): TracedMethod {
  return {
    spanName: `grpc.${serviceTypeName}/${methodName}`,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': serviceTypeName, 'rpc.method': methodName },
  };
}

/**
 * The metadata of an outgoing call, carrying the caller's trace context, and
 * the call's client span when the caller's span is recorded (none otherwise,
 * and none without a caller's span, as for pg: a background loop's call
 * starts no trace of its own).
 */
export function startClientCall(method: TracedMethod): { metadata: Metadata; span: Span | undefined } {
  const metadata = new Metadata();
  const active = context.active();
  if (!trace.getSpan(active)?.isRecording()) {
    propagation.inject(active, metadata, setter);
    return { metadata, span: undefined };
  }
  const span = tracer.startSpan(method.spanName, { kind: SpanKind.CLIENT, attributes: method.attributes }, active);
  propagation.inject(trace.setSpan(active, span), metadata, setter);
  return { metadata, span };
}

/** Ends a call's span (client or server) with its status: any code but OK marks it failed, as the instrumentation did. */
export function endCall(span: Span | undefined, code: status, message?: string): void {
  if (!span?.isRecording()) return;
  span.setAttribute('rpc.grpc.status_code', code);
  if (code !== status.OK) span.setStatus(message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message });
  span.end();
}

/**
 * The context an incoming call's handler runs in: the caller's trace
 * continued by a server span. The sampler decides as for any span (a call
 * with no `traceparent` is a root), but the attributes are only set on a
 * span that is recorded.
 */
export function serverCallContext(method: TracedMethod, metadata: Metadata): { context: Context; span: Span } {
  const parent = propagation.extract(ROOT_CONTEXT, metadata, getter);
  const span = tracer.startSpan(method.spanName, { kind: SpanKind.SERVER }, parent);
  if (span.isRecording()) span.setAttributes(method.attributes);
  return { context: trace.setSpan(parent, span), span };
}
