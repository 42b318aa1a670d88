import { context, trace } from '@opentelemetry/api';
import type { InstrumentationBase } from '@opentelemetry/instrumentation';

type Method = (this: unknown, ...args: unknown[]) => unknown;
type Wrap = (nodule: Record<string, unknown>, name: string, wrapper: (original: Method, name: string) => Method) => unknown;

/**
 * Makes an instrumentation's wrappers apply only inside a span that is
 * recorded: a call under a span the sampler dropped (nine in ten at
 * production's 0.1), or under none, goes straight to the library's own
 * method. The library's wrappers otherwise do their whole work for every
 * call (attributes, a span the sampler then drops, callback binding, a
 * metric with its attributes hashed), which was most of what tracing cost
 * an order (docs/benchmarks.md, "What each hop costs"). A recorded trace
 * keeps every span it had.
 *
 * For pg and ioredis, and outgoing node:http requests (`methods`: the
 * incoming side starts traces, it is not gated): none of them carries our
 * context to a process of ours (gRPC and NATS do, and are not gated; our only
 * outgoing node:http requests are webhook deliveries and span exports, both
 * under suppressTracing, for which the wrapper still parsed the URL and built
 * attributes before finding out). Without a recorded span they also send no
 * `traceparent`.
 *
 * Done where the instrumentation patches (its `_wrap`), so it holds wherever
 * and whenever the library is loaded. Must be applied before the library is.
 */
export function recordingOnly<T extends InstrumentationBase>(instrumentation: T, methods?: readonly string[]): T {
  const holder = instrumentation as unknown as { _wrap: Wrap };
  const wrap = holder._wrap;
  holder._wrap = (nodule, name, wrapper) =>
    methods && !methods.includes(name)
      ? wrap(nodule, name, wrapper)
      : wrap(nodule, name, (original, originalName) => {
          const instrumented = wrapper(original, originalName);
          // A pool's `connect(callback)` may call back from another caller's release: the callback keeps its own context.
          const bindCallback = name === 'connect';
          return function recordedOnly(this: unknown) {
            const active = context.active();
            if (trace.getSpan(active)?.isRecording()) return instrumented.apply(this, arguments as unknown as unknown[]);
            if (bindCallback && typeof arguments[arguments.length - 1] === 'function') {
              const args = Array.prototype.slice.call(arguments);
              args[args.length - 1] = context.bind(active, args[args.length - 1] as Method);
              return original.apply(this, args);
            }
            return original.apply(this, arguments as unknown as unknown[]);
          };
        });
  return instrumentation;
}
