/**
 * PLATFORM_NAMESPACE prefixes every subject, stream and durable name, so two
 * platforms (a developer's and the test suite's) can share one NATS server.
 */
export interface Namespace {
  subject(name: string): string;
  stream(name: string): string;
  durable(name: string): string;
}

export function namespace(ns: string): Namespace {
  return {
    subject: (name) => `${ns}.${name}`,
    stream: (name) => `${ns.toUpperCase()}_${name}`,
    durable: (name) => `${ns}_${name}`,
  };
}
