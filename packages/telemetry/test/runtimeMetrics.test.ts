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
  it('when the event loop is blocked for 200 ms, then the next scrape reports that delay and a busy loop', async () => {
    await scrape(); // resets the delay histogram
    await new Promise((resolve) => setTimeout(resolve, 50));
    const until = Date.now() + 200;
    while (Date.now() < until) {
      // a synchronous stall, as a CPU-bound request would cause
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const blocked = await scrape();
    expect(valueOf(blocked, 'nodejs_eventloop_delay_max_seconds')).toBeGreaterThan(0.15);
    expect(valueOf(blocked, 'nodejs_eventloop_utilization_ratio')).toBeGreaterThan(0.4);
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
