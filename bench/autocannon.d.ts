/** The slice of autocannon 9's programmatic API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    headers?: Record<string, string>;
    /** Seconds of load before the measured run; its figures are discarded. */
    warmup?: { connections?: number; duration?: number };
    /** Seconds before a request counts as a timeout. */
    timeout?: number;
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
    duration: number;
  }

  /** The running load: a promise of the result that can also be stopped early. */
  export interface Instance extends Promise<Result> {
    stop(): void;
  }

  export default function autocannon(options: Options): Instance;
}
