import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findBinary, freePortsWithOffset, ServerProcess, waitFor } from './processes.js';

const run = promisify(execFile);

export interface RedisClusterNode {
  port: number;
  dir: string;
  process: ServerProcess;
}

/**
 * A Redis Cluster of six redis-server processes on loopback (three masters,
 * each with one replica), each in its own folder under the OS temp dir. The
 * node timeout is short (`nodeTimeoutMs`, 2 s) so a killed master's replica
 * takes over within seconds; production keeps Redis' default of 15 s.
 */
export interface RedisCluster {
  /** `127.0.0.1:p1,…`, as REDIS_CLUSTER_NODES takes it. */
  seedNodes: string;
  nodes: RedisClusterNode[];
  /** Ports of the running masters (as the cluster reports them). */
  masters(): Promise<number[]>;
  /** The port of the replica that follows the master on `masterPort`. */
  replicaOf(masterPort: number): Promise<number | undefined>;
  /** Resolves once every running node reports cluster_state:ok, all 16384 slots served by three running masters, every replica synced. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** SIGKILLs the node on `port`. */
  kill(port: number): Promise<void>;
  /** Starts the node on `port` again (same folder and node id) and waits until the cluster is healthy with it. */
  restart(port: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisCluster(options: { nodeTimeoutMs?: number } = {}): Promise<RedisCluster> {
  const server = findBinary('redis-server');
  const cli = findBinary('redis-cli');
  const root = mkdtempSync(join(tmpdir(), 'esim-redis-cluster-'));
  // The cluster bus listens on port + 10000, which must be free and below 65536 too.
  const ports = await freePortsWithOffset(6, 10_000);
  const nodes: RedisClusterNode[] = ports.map((port) => {
    const dir = join(root, String(port));
    mkdirSync(dir);
    const args = [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--protected-mode', 'no'],
      ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 2_000)],
      // Memory only: a restarted node resyncs from its master, as a replaced pod would.
      ...['--save', '', '--appendonly', 'no', '--logfile', 'redis.log'],
    ];
    return { port, dir, process: new ServerProcess(server, args, dir) };
  });
  const redisCli = async (port: number, ...args: string[]) => (await run(cli, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 5_000 })).stdout;
  const info = async (port: number) => Object.fromEntries((await redisCli(port, 'CLUSTER', 'INFO')).split(/\r?\n/).map((line) => line.split(':') as [string, string]));
  /** `CLUSTER NODES` as seen from `port`: id, port, flags and master id of each node. */
  const clusterNodes = async (port: number) =>
    (await redisCli(port, 'CLUSTER', 'NODES'))
      .trim()
      .split('\n')
      .map((line) => {
        const [id, address, flags, master] = line.split(' ');
        return { id: id!, port: Number(/:(\d+)@/.exec(address!)?.[1]), flags: flags!.split(','), master: master! };
      });
  const running = () => nodes.filter((n) => n.process.running);
  const known = async () => clusterNodes(running()[0]!.port);

  const cluster: RedisCluster = {
    seedNodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    nodes,
    async masters() {
      return (await known()).filter((n) => n.flags.includes('master') && !n.flags.includes('fail')).map((n) => n.port);
    },
    async replicaOf(masterPort) {
      const all = await known();
      const master = all.find((n) => n.port === masterPort);
      return all.find((n) => n.master === master?.id && !n.flags.includes('fail'))?.port;
    },
    async waitHealthy(timeoutMs = 60_000) {
      await waitFor(
        async () => {
          const views = await Promise.all(running().map(async (n) => ({ info: await info(n.port), nodes: await clusterNodes(n.port) })));
          const mastersSeen = views.map((view) => view.nodes.filter((n) => n.flags.includes('master') && !n.flags.some((f) => f.startsWith('fail'))).map((n) => n.port).sort().join());
          // A killed master keeps its slots in everyone's view until its replica is promoted.
          const runningPorts = new Set(running().map((n) => n.port));
          if (!mastersSeen[0] || mastersSeen[0].split(',').length !== 3 || !mastersSeen[0].split(',').every((port) => runningPorts.has(Number(port)))) return false;
          // A replica that has not synced yet would not stand for election when its master dies.
          const replication = await Promise.all(running().map(async (n) => await redisCli(n.port, 'INFO', 'replication')));
          if (replication.some((text) => /role:slave/.test(text) && !/master_link_status:up/.test(text))) return false;
          return views.every(
            (view) =>
              view.info.cluster_state === 'ok' &&
              view.info.cluster_slots_ok === '16384' &&
              // Every running node is known to every other as up (no pfail/fail flag left from a restart).
              running().every((n) => view.nodes.some((seen) => seen.port === n.port && !seen.flags.some((f) => f.startsWith('fail') || f === 'handshake'))),
          ) && new Set(mastersSeen).size === 1;
        },
        'Redis Cluster: cluster_state:ok on every running node, all slots served, one view of the masters',
        timeoutMs,
      );
    },
    async kill(port) {
      await node(port).process.stop('SIGKILL');
    },
    async restart(port, timeoutMs = 60_000) {
      node(port).process.start();
      await waitFor(async () => (await info(port)).cluster_state === 'ok', `restarted Redis node ${port} to rejoin`, timeoutMs);
      await cluster.waitHealthy(timeoutMs);
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.process.stop('SIGKILL')));
      rmSync(root, { recursive: true, force: true });
    },
  };
  const node = (port: number) => {
    const found = nodes.find((n) => n.port === port);
    if (!found) throw new Error(`no Redis node on port ${port}`);
    return found;
  };

  try {
    for (const n of nodes) n.process.start();
    await waitFor(async () => (await Promise.all(nodes.map((n) => redisCli(n.port, 'PING')))).every((answer) => answer.trim() === 'PONG'), 'six redis-server processes to answer PING', 15_000);
    await run(cli, ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'], { timeout: 30_000 });
    await cluster.waitHealthy();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
