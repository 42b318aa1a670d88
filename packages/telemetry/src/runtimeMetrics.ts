import type { Meter } from '@opentelemetry/api';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

const gcKinds: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/**
 * How often the event-loop delay is sampled. Each sample is a timer that
 * wakes the loop: at 10 ms (prom-client's default) that is 100 wake-ups a
 * second and ~0.0024 of a core per idle process, more than half of what a
 * service burns at rest (docs/benchmarks.md, "platform at rest"). At 100 ms
 * it is ~0.0003; a stall longer than the interval is still always seen, and
 * the alert (p99 > 0.5 s) is far above it.
 */
export const eventLoopDelayResolutionMs = 100;

/**
 * Node runtime health on /metrics, from perf_hooks and v8 (no extra
 * package): event-loop delay (p50, p99, max since the previous scrape),
 * event-loop utilisation, heap and RSS, and GC pauses by kind. A blocked
 * loop shows here before latency alerts fire.
 */
export function startRuntimeMetrics(meter: Meter): void {
  const delay = monitorEventLoopDelay({ resolution: eventLoopDelayResolutionMs });
  delay.enable();
  let lastUtilization = performance.eventLoopUtilization();

  const delayP50 = meter.createObservableGauge('nodejs_eventloop_delay_p50_seconds', { description: 'Event-loop delay, median since the last scrape' });
  const delayP99 = meter.createObservableGauge('nodejs_eventloop_delay_p99_seconds', { description: 'Event-loop delay, 99th percentile since the last scrape' });
  const delayMax = meter.createObservableGauge('nodejs_eventloop_delay_max_seconds', { description: 'Event-loop delay, maximum since the last scrape' });
  const utilization = meter.createObservableGauge('nodejs_eventloop_utilization_ratio', { description: 'Share of time the event loop was busy since the last scrape' });
  const heapUsed = meter.createObservableGauge('nodejs_heap_used_bytes', { description: 'V8 heap in use' });
  const heapTotal = meter.createObservableGauge('nodejs_heap_total_bytes', { description: 'V8 heap allocated' });
  const heapLimit = meter.createObservableGauge('nodejs_heap_limit_bytes', { description: 'V8 heap size limit' });
  const rss = meter.createObservableGauge('process_resident_memory_bytes', { description: 'Resident set size of the process' });
  const cpu = meter.createObservableCounter('process_cpu_seconds', { description: 'User and system CPU time of the process' });

  meter.addBatchObservableCallback(
    (result) => {
      // The histogram holds nanoseconds between timer firings, the resolution included: the delay is what
      // exceeds it (an idle loop reads 0, not the resolution). An empty histogram reports NaN percentiles.
      const seconds = (nanos: number) => (Number.isFinite(nanos) ? Math.max(0, nanos / 1e9 - eventLoopDelayResolutionMs / 1e3) : 0);
      result.observe(delayP50, seconds(delay.percentile(50)));
      result.observe(delayP99, seconds(delay.percentile(99)));
      result.observe(delayMax, seconds(delay.max));
      delay.reset();
      const now = performance.eventLoopUtilization();
      result.observe(utilization, performance.eventLoopUtilization(now, lastUtilization).utilization);
      lastUtilization = now;
      const heap = getHeapStatistics();
      result.observe(heapUsed, heap.used_heap_size);
      result.observe(heapTotal, heap.total_heap_size);
      result.observe(heapLimit, heap.heap_size_limit);
      result.observe(rss, process.memoryUsage.rss());
      const { user, system } = process.cpuUsage();
      result.observe(cpu, (user + system) / 1e6);
    },
    [delayP50, delayP99, delayMax, utilization, heapUsed, heapTotal, heapLimit, rss, cpu],
  );

  const gcPause = meter.createHistogram('nodejs_gc_duration_seconds', {
    description: 'Garbage-collection pauses by kind',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1] },
  });
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = ((entry as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind;
      gcPause.record(entry.duration / 1000, { kind: gcKinds[kind ?? -1] ?? 'other' });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}
