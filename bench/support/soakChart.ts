/** Draws the soak's samples as an SVG with vega-lite (rendered in Node: no browser, no canvas). */
import { writeFile } from 'node:fs/promises';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export interface Sample {
  /** Seconds since the load started. */
  atS: number;
  /** p99 latency (ms) of each request stream over the last 10 s. */
  p99Ms: Record<string, number>;
  /** RSS (MiB) of each service at the sample. */
  rssMiB: Record<string, number>;
}

export async function drawSoakChart(samples: Sample[], file: string, title: string): Promise<void> {
  const latency = samples.flatMap((s) => Object.entries(s.p99Ms).map(([stream, value]) => ({ minute: s.atS / 60, stream, value })));
  const memory = samples.flatMap((s) => Object.entries(s.rssMiB).map(([service, value]) => ({ minute: s.atS / 60, service, value })));
  const x = { field: 'minute', type: 'quantitative', title: 'minutes into the soak' } as const;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    vconcat: [
      {
        title: 'p99 latency per 10 s, as the client saw it',
        width: 640,
        height: 200,
        data: { values: latency },
        mark: { type: 'line', point: true },
        encoding: { x, y: { field: 'value', type: 'quantitative', title: 'p99 (ms)' }, color: { field: 'stream', type: 'nominal', title: 'requests', scale: { scheme: 'set1' } } },
      },
      {
        title: 'RSS of every service',
        width: 640,
        height: 260,
        data: { values: memory },
        mark: 'line',
        // Nine services and more: a 20-colour scheme, so no two share a colour.
        encoding: { x, y: { field: 'value', type: 'quantitative', title: 'RSS (MiB)', scale: { zero: false } }, color: { field: 'service', type: 'nominal', title: 'service', scale: { scheme: 'tableau20' } } },
      },
    ],
    // Each chart its own colours and legend: request streams are not services.
    resolve: { scale: { color: 'independent' }, legend: { color: 'independent' } },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  await writeFile(file, await view.toSVG());
  view.finalize();
}
