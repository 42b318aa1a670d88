/**
 * The apps type-check against the gateway's own schemas, which pulls server
 * modules into this DOM-typed project. Where Node's type of a global differs
 * from the DOM's, the server's use is declared here (web type-checking only).
 */
interface PerformanceEntry {
  /** Node's `gc` entries carry `{ kind }` (packages/telemetry/src/runtimeMetrics.ts). */
  readonly detail?: unknown;
}
