import { isSpanContextValid, SpanKind, trace, type Attributes, type Context, type Link } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
} from '@opentelemetry/sdk-trace-base';

/** An incoming HTTP request: the only way a caller outside the platform reaches a span of ours. */
function isIncomingHttp(kind: SpanKind, attributes: Attributes): boolean {
  return kind === SpanKind.SERVER && (attributes['http.request.method'] !== undefined || attributes['http.method'] !== undefined);
}

/**
 * Parent-based sampling that does not let a caller outside the platform
 * decide for us. A partner's `traceparent` on an incoming HTTP request keeps
 * its trace id (our spans join the partner's trace), but whether we record it
 * is decided by `root`, as for a request without a parent, whatever the
 * partner's sampled flag says: a partner sending `-01` on every request
 * cannot make us record all its traffic, nor `-00` hide it. Parents that
 * arrive over our own propagation (gRPC metadata between services, NATS
 * headers of an event) and local parents are followed, so a trace we chose
 * to record is recorded whole. The supplier simulator's incoming HTTP counts
 * as outside: it stands in for a third party.
 */
export class EdgeAwareParentBasedSampler implements Sampler {
  private readonly parentBased: ParentBasedSampler;

  constructor(private readonly root: Sampler) {
    this.parentBased = new ParentBasedSampler({ root });
  }

  shouldSample(context: Context, traceId: string, spanName: string, spanKind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    const parent = trace.getSpanContext(context);
    if (parent && isSpanContextValid(parent) && parent.isRemote && isIncomingHttp(spanKind, attributes)) {
      return this.root.shouldSample(context, traceId, spanName, spanKind, attributes, links);
    }
    return this.parentBased.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `EdgeAwareParentBased{root=${this.root.toString()}}`;
  }
}

function ratioOf(arg: string | undefined): number {
  const ratio = arg === undefined ? 1 : Number(arg);
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1;
}

/**
 * The sampler OTEL_TRACES_SAMPLER names (OpenTelemetry's values; the ratio
 * from OTEL_TRACES_SAMPLER_ARG, 1 when missing or invalid). The
 * `parentbased_*` ones are edge-aware (above). An unknown name falls back to
 * the specification's default, parentbased_always_on, as the SDK would.
 */
export function samplerFor(name: string, arg?: string): Sampler {
  const ratio = ratioOf(arg);
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new EdgeAwareParentBasedSampler(new AlwaysOffSampler());
    case 'parentbased_traceidratio':
      return new EdgeAwareParentBasedSampler(new TraceIdRatioBasedSampler(ratio));
    default:
      return new EdgeAwareParentBasedSampler(new AlwaysOnSampler());
  }
}
