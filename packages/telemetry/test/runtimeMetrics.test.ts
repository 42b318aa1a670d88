// Protects the Node runtime gauges an SRE reads when latency climbs: event-loop delay and utilisation, heap, RSS, CPU and GC pauses, on /metrics.
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { startRuntimeMetrics } from '@esim/telemetry';

const reader = new PrometheusExporter({ preventServerStart: true });
startRuntimeMetrics(new MeterProvider({ readers: [reader] }).getMeter('nodejs'));
const scrape = async () => new PrometheusSerializer().serialize((await reader.collect()).resourceMetrics);
const valueOf = (page: string, metric: string) => Number(page.split('\n').find((line) => line.startsWith(`${metric}{`) || line.startsWith(`${metric} `))?.split(' ').at(-1));

describe('runtime metrics', () => {
  it('when the event loop is blocked for 400 ms, then the next scrape reports that delay and a busy loop', async () => {
    await scrape(); // resets the delay histogram, whose first sample after that only starts the count
    await new Promise((resolve) => setTimeout(resolve, 150));
    const until = Date.now() + 400;
    while (Date.now() < until) {
      // a synchronous stall, as a CPU-bound request would cause
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
    const blocked = await scrape();
    // Sampled every 100 ms: the stall is seen whole but for the part before the next sample was due.
    expect(valueOf(blocked, 'nodejs_eventloop_delay_max_seconds')).toBeGreaterThan(0.25);
    expect(valueOf(blocked, 'nodejs_eventloop_delay_max_seconds')).toBeLessThan(0.45);
    expect(valueOf(blocked, 'nodejs_eventloop_utilization_ratio')).toBeGreaterThan(0.4);
  });

  it('when the event loop is idle, then its delay reads about zero, not the sampling interval', async () => {
    await scrape();
    await new Promise((resolve) => setTimeout(resolve, 600));
    const idle = await scrape();
    expect(valueOf(idle, 'nodejs_eventloop_delay_p50_seconds')).toBeGreaterThanOrEqual(0);
    expect(valueOf(idle, 'nodejs_eventloop_delay_p50_seconds')).toBeLessThan(0.05);
  });

  it('when scraped, then heap, its limit, RSS and CPU time are reported in bytes and seconds', async () => {
    const page = await scrape();
    expect(valueOf(page, 'nodejs_heap_used_bytes')).toBeGreaterThan(1_000_000);
    expect(valueOf(page, 'nodejs_heap_limit_bytes')).toBeGreaterThan(valueOf(page, 'nodejs_heap_total_bytes'));
    expect(valueOf(page, 'process_resident_memory_bytes')).toBeGreaterThan(valueOf(page, 'nodejs_heap_used_bytes'));
    expect(valueOf(page, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it('when garbage is collected, then the pause is recorded by kind', async () => {
    let page = '';
    for (let round = 0; round < 50 && !/^nodejs_gc_duration_seconds_count\{[^}]*kind="(minor|major|incremental)"/m.test(page); round++) {
      let garbage: unknown[] = [];
      for (let i = 0; i < 200_000; i++) garbage.push({ i });
      garbage = [];
      await new Promise((resolve) => setTimeout(resolve, 20));
      page = await scrape();
    }
    expect(page).toMatch(/^nodejs_gc_duration_seconds_count\{[^}]*kind="(minor|major|incremental)"[^}]*\} [1-9]/m);
  });
});
