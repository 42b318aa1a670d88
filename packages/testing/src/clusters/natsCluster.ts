import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary, freePortsWithOffset, ServerProcess, waitFor } from './processes.js';

export interface NatsNode {
  /** The server name (`n1`…), as JetStream names leaders and peers. */
  name: string;
  port: number;
  clusterPort: number;
  monitorPort: number;
  url: string;
  storeDir: string;
  process: ServerProcess;
}

/**
 * A JetStream cluster of three (or `size`) nats-server processes on loopback,
 * routed to each other, each with its own store under the OS temp dir: the
 * shape of a production NATS with NATS_STREAM_REPLICAS=3.
 */
export interface NatsCluster {
  /** Every server, comma-separated, as NATS_URL takes it. */
  url: string;
  nodes: NatsNode[];
  node(name: string): NatsNode;
  /** The JetStream meta leader's server name, as every running node reports it. */
  metaLeader(): Promise<string>;
  /** Resolves once every running node sees the same meta leader and the cluster's full set of peers (or `expectedPeers`). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** SIGKILLs one server (a crash: no clean leadership hand-over). */
  kill(name: string): Promise<void>;
  /** Starts a killed server again on its ports and store, and waits until the cluster is healthy with it. */
  restart(name: string, timeoutMs?: number): Promise<void>;
  /** Stops every server and removes the stores. */
  stop(): Promise<void>;
}

interface Jsz {
  server_name?: string;
  meta_cluster?: { leader?: string; replicas?: Array<{ name: string; current: boolean; offline?: boolean }> };
}

async function jsz(node: NatsNode): Promise<Jsz> {
  const response = await fetch(`http://127.0.0.1:${node.monitorPort}/jsz`, { signal: AbortSignal.timeout(1_000) });
  return (await response.json()) as Jsz;
}

export async function startNatsCluster(options: { size?: number; clusterName?: string } = {}): Promise<NatsCluster> {
  const size = options.size ?? 3;
  const binary = findBinary('nats-server');
  const root = mkdtempSync(join(tmpdir(), 'esim-nats-cluster-'));
  const [ports, clusterPorts, monitorPorts] = [await freePortsWithOffset(size), await freePortsWithOffset(size), await freePortsWithOffset(size)];
  const routes = clusterPorts.map((port) => `nats://127.0.0.1:${port}`).join(',');
  const nodes: NatsNode[] = ports.map((port, i) => {
    const name = `n${i + 1}`;
    const storeDir = join(root, name);
    mkdirSync(storeDir);
    const args = [
      ...['--server_name', name, '-a', '127.0.0.1', '-p', String(port), '-m', String(monitorPorts[i])],
      ...['--cluster_name', options.clusterName ?? 'esimtest', '--cluster', `nats://127.0.0.1:${clusterPorts[i]}`, '--routes', routes],
      ...['-js', '-sd', storeDir],
    ];
    return { name, port, clusterPort: clusterPorts[i]!, monitorPort: monitorPorts[i]!, url: `nats://127.0.0.1:${port}`, storeDir, process: new ServerProcess(binary, args, root) };
  });
  const node = (name: string) => {
    const found = nodes.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no NATS node ${name} (have ${nodes.map((n) => n.name).join(', ')})`);
    return found;
  };

  const leaders = async () => Promise.all(nodes.filter((n) => n.process.running).map(async (n) => (await jsz(n)).meta_cluster));
  const cluster: NatsCluster = {
    url: nodes.map((n) => n.url).join(','),
    nodes,
    node,
    async metaLeader() {
      let leader = '';
      await waitFor(
        async () => {
          const seen = await leaders();
          leader = seen[0]?.leader ?? '';
          // A killed leader is still named by the others until they elect anew.
          return leader !== '' && node(leader).process.running && seen.every((meta) => meta?.leader === leader);
        },
        'one JetStream meta leader seen by every running node',
        30_000,
      );
      return leader;
    },
    async waitHealthy(timeoutMs = 60_000) {
      await waitFor(
        async () => {
          const running = nodes.filter((n) => n.process.running);
          const seen = await leaders();
          const leader = seen[0]?.leader;
          if (!leader || !node(leader).process.running || !seen.every((meta) => meta?.leader === leader)) return false;
          // The leader lists the other peers as current only once they caught up with the meta log.
          const fromLeader = (await jsz(node(leader))).meta_cluster?.replicas ?? [];
          return running.every((n) => n.name === leader || fromLeader.some((peer) => peer.name === n.name && peer.current && !peer.offline));
        },
        'a JetStream meta leader with every running node current',
        timeoutMs,
      );
    },
    async kill(name) {
      await node(name).process.stop('SIGKILL');
    },
    async restart(name, timeoutMs = 60_000) {
      node(name).process.start();
      await cluster.waitHealthy(timeoutMs);
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.process.stop('SIGTERM')));
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    for (const n of nodes) n.process.start();
    await cluster.waitHealthy();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
