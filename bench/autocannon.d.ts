/** The slice of autocannon 9's programmatic API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
    /** Replaces `[<id>]` in the body with a fresh id per request. */
    idReplacement?: boolean;
    /** Seconds of load before the measured run; its figures are discarded. */
    warmup?: { connections?: number; duration?: number };
    /** Seconds before a request counts as a timeout. */
    timeout?: number;
    /** Requests per second across all connections (a steady rate instead of as fast as possible). */
    overallRate?: number;
    /** Requests each connection sends in turn (paths relative to `url`'s origin). */
    requests?: Array<{ method?: string; path?: string; body?: string; headers?: Record<string, string> }>;
  }

  /** Figures per second (requests, throughput) or milliseconds (latency). */
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }

  export interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    /** Answers by status code. */
    statusCodeStats?: Record<string, { count: number }>;
    duration: number;
  }

  /** The running load: a promise of the result that can also be stopped early. */
  export interface Instance extends Promise<Result> {
    stop(): void;
    /** Every answer: status code, bytes and its latency in milliseconds. */
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
  }

  export default function autocannon(options: Options): Instance;
}
