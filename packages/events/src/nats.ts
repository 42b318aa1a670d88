import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { credsAuthenticator, nanos, type ConnectionOptions, type NatsConnection } from '@nats-io/nats-core';
import { streams, type StreamName } from './contracts.js';
import type { Namespace } from './namespace.js';

export type { NatsConnection } from '@nats-io/nats-core';

/**
 * How a service proves itself to NATS beyond the URL (which may carry
 * `user:password@`): a `.creds` file (decentralised JWT auth, as the NATS Helm
 * chart's operator mode issues) and TLS files. Paths, so Kubernetes can mount
 * a Secret and rotate it without the value ever entering the environment.
 */
export interface NatsSecurity {
  credsFile?: string;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

/** The connect options for `security`; a file that cannot be read fails the boot, naming it. */
export function natsConnectOptions(security: NatsSecurity = {}): Pick<ConnectionOptions, 'authenticator' | 'tls'> {
  const options: Pick<ConnectionOptions, 'authenticator' | 'tls'> = {};
  if (security.credsFile) {
    const path = security.credsFile;
    let creds: Uint8Array;
    try {
      creds = readFileSync(path);
    } catch (error) {
      throw new Error(`NATS_CREDS: cannot read ${path}: ${(error as Error).message}`);
    }
    options.authenticator = credsAuthenticator(creds);
  }
  const tls = security.tls ?? {};
  if (tls.caFile || tls.certFile || tls.keyFile) {
    // Any TLS file means "TLS required": the client refuses a plaintext server.
    options.tls = {
      ...(tls.caFile ? { caFile: tls.caFile } : {}),
      ...(tls.certFile ? { certFile: tls.certFile } : {}),
      ...(tls.keyFile ? { keyFile: tls.keyFile } : {}),
    };
  }
  return options;
}

/**
 * Reconnects forever: a NATS restart must not take a service down with it.
 * `url` may list the servers of one cluster (`nats://a:4222,nats://b:4222`,
 * NATS_URL): the client connects to any of them and, when that server dies,
 * fails over to another (and to those the cluster gossips) within about a
 * second.
 */
export function connectNats(url: string, name: string, security: NatsSecurity = {}): Promise<NatsConnection> {
  const servers = url.split(',').map((entry) => entry.trim()).filter(Boolean);
  // noAsyncTraces: no Error (with its stack) built ahead of every request and JetStream publish just in case it
  // fails; a failure's stack then starts in the client rather than at our call (~0.6 ms per order, docs/benchmarks.md).
  return connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 1_000, timeout: 5_000, noAsyncTraces: true, ...natsConnectOptions(security) });
}

const duplicateWindowMs = 2 * 60_000;

export interface StreamOptions {
  /**
   * JetStream replicas of each stream (NATS_STREAM_REPLICAS; 3 on a clustered
   * NATS in production). Unset: a new stream gets 1 and an existing one keeps
   * what it has, so a consumer-only service never scales a stream down.
   */
  replicas?: number;
}

/**
 * How long a JetStream API call may take. On a cluster, creating or updating
 * a replicated stream waits for its Raft group (and, right after a server
 * loss, for a new meta leader): seconds, not the client's default 5 s.
 */
const apiTimeoutMs = 20_000;
/** Attempts per stream when the API does not answer in time (a leader election under way). */
const apiAttempts = 3;

const isTimeout = (error: unknown) => error instanceof Error && (error.name === 'TimeoutError' || /timeout/i.test(error.message));

/** Creates or updates the namespaced streams a service publishes to or reads from. */
export async function ensureStreams(nc: NatsConnection, ns: Namespace, names: StreamName[], options: StreamOptions = {}): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc, { timeout: apiTimeoutMs });
  for (const name of names) {
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureStream(jsm, ns, name, options);
        break;
      } catch (error) {
        if (!isTimeout(error) || attempt >= apiAttempts) throw error;
      }
    }
  }
  return jsm;
}

async function ensureStream(jsm: JetStreamManager, ns: Namespace, name: StreamName, options: StreamOptions): Promise<void> {
  const spec = streams[name];
  const replicas = options.replicas === undefined ? {} : { num_replicas: options.replicas };
  const config = {
    name: ns.stream(name),
    subjects: spec.subjects.map((s) => ns.subject(s)),
    storage: StorageType.File,
    retention: spec.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
    max_age: nanos(spec.maxAgeMs),
    duplicate_window: nanos(duplicateWindowMs),
    num_replicas: options.replicas ?? 1,
  };
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, { subjects: config.subjects, max_age: config.max_age, duplicate_window: config.duplicate_window, ...replicas });
  } catch (error) {
    if (!/not found/i.test(String((error as Error).message))) throw error;
    await jsm.streams.add(config).catch(async (addError: Error) => {
      // Another replica created it between our info and add.
      if (!/already in use|exists/i.test(addError.message)) throw addError;
    });
  }
}
