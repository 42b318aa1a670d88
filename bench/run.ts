/** `npm run bench`: every benchmark of the project, one after another. Never part of `npm test`. */
import { catalogBenchmark } from './catalog.js';

try {
  await catalogBenchmark();
} catch (error) {
  process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}
