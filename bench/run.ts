/**
 * `npm run bench`: every benchmark of the project, one after another. Never part of `npm test`.
 *
 *   npm run bench                         catalog (hot path), orders, cost, saga, history, test-mode, startup
 *   npm run bench -- --only catalog       some of them (comma-separated: catalog, orders, cost, saga, history, test-mode, rest, startup)
 *   npm run bench -- --only history       an order's reads on an empty database and with a million rows of history (bench/history.ts; BENCH_HISTORY_ROWS=100000 for a quick run)
 *   npm run bench -- --only cost          CPU per order and at rest, Postgres counters per order (bench/cost.ts; BENCH_TRACES_SAMPLER=parentbased_traceidratio BENCH_TRACES_SAMPLER_ARG=0.1 for production's sampler)
 *   npm run bench -- --only saga          #29's targets in one run: CPU per order, share of pgbench, burst settling, webhook lag at 50/s (bench/saga.ts)
 *   npm run bench -- --only rest          the platform at rest alone: three one-minute windows after one of quiet (bench/rest.ts; BENCH_REST_PROFILE=1 profiles it)
 *   npm run bench -- --settings production,noExporter   tracing settings of the catalog benchmark
 *   npm run bench -- --duration 5         measured seconds per target (catalog)
 *   npm run bench -- --sources            services from sources (tsx) instead of compiled dist/
 *   npm run bench -- --node-options="--max-semi-space-size=1"   NODE_OPTIONS for every service (catalog), to try a setting
 *   npm run bench -- --host-heap          services with V8's heap for this host instead of production's (scripts/deploy/nodeOptions.ts)
 *   npm run bench -- --no-report          print only; docs/benchmarks.md is left alone
 *   npm run bench -- --only startup --services gateway,catalog   the startup benchmark for some services
 *   npm run bench -- --soak 10m           the soak alone (bench/soak.ts), e.g. 1m to try it
 *   npm run bench -- --only orders-cluster   orders on one node and on the clusters, two replicas of each service (opt-in: needs nats-server, redis-server)
 */
import { parseArgs } from 'node:util';
import { catalogBenchmark, type SettingName } from './catalog.js';
import { costBenchmark } from './cost.js';
import { sagaBenchmark } from './saga.js';
import { historyBenchmark } from './history.js';
import { testModeBenchmark } from './testMode.js';
import { restBenchmark } from './rest.js';
import { ordersBenchmark } from './orders.js';
import { ordersClusterBenchmark } from './ordersCluster.js';
import { soakBenchmark } from './soak.js';
import { productionNodeOptions } from '../scripts/deploy/nodeOptions.js';
import { startupBenchmark } from './startup.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    settings: { type: 'string' },
    duration: { type: 'string' },
    sources: { type: 'boolean', default: false },
    'node-options': { type: 'string' },
    'host-heap': { type: 'boolean', default: false },
    'no-report': { type: 'boolean', default: false },
    soak: { type: 'string' },
    services: { type: 'string' },
  },
});

const list = (value: string | undefined) => value?.split(',').map((s) => s.trim()).filter(Boolean);
const only = new Set(list(values.only) ?? ['catalog', 'orders', 'cost', 'saga', 'history', 'test-mode', 'startup']);
const report = !values['no-report'];

try {
  if (values.soak !== undefined) {
    await soakBenchmark({ duration: values.soak, report });
  } else {
    if (only.has('catalog')) {
      await catalogBenchmark({
        ...(values.settings ? { settings: list(values.settings) as SettingName[] } : {}),
        ...(values.duration ? { duration: Number(values.duration) } : {}),
        mode: values.sources ? 'sources' : 'compiled',
        serviceEnv: { NODE_OPTIONS: [...(values['host-heap'] ? [] : productionNodeOptions), values['node-options'] ?? ''].join(' ').trim() },
        ...(report ? {} : { reportFile: undefined }),
      });
    }
    if (only.has('orders')) await ordersBenchmark();
    if (only.has('cost')) await costBenchmark({ mode: values.sources ? 'sources' : 'compiled', report });
    if (only.has('saga')) await sagaBenchmark({ mode: values.sources ? 'sources' : 'compiled', report });
    if (only.has('history')) await historyBenchmark({ mode: values.sources ? 'sources' : 'compiled', report });
    if (only.has('test-mode')) await testModeBenchmark({ mode: values.sources ? 'sources' : 'compiled', report });
    if (only.has('rest')) await restBenchmark({ mode: values.sources ? 'sources' : 'compiled', report });
    if (only.has('orders-cluster')) await ordersClusterBenchmark({ report });
    if (only.has('startup')) await startupBenchmark({ ...(report ? {} : { reportFile: undefined }), ...(values.services ? { services: list(values.services) } : {}) });
  }
} catch (error) {
  process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}
