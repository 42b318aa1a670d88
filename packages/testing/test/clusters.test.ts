// Protects the cluster harness the cluster suite stands on: a 3-node JetStream cluster and a 6-node Redis Cluster on free loopback ports, healthy before use, surviving the loss and return of any one node, and gone afterwards.
import { existsSync } from 'node:fs';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connectNats, ensureStreams, namespace } from '@esim/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsCluster, startRedisCluster, until, type NatsCluster, type RedisCluster } from '@esim/testing';

describe('NATS JetStream cluster', () => {
  let cluster: NatsCluster;
  beforeAll(async () => {
    cluster = await startNatsCluster();
  }, 90_000);
  afterAll(async () => cluster?.stop());

  it('when started, then three named servers on distinct loopback ports share one meta leader and NATS_URL lists them all', async () => {
    expect(cluster.nodes.map((n) => n.name)).toEqual(['n1', 'n2', 'n3']);
    expect(new Set(cluster.nodes.flatMap((n) => [n.port, n.clusterPort, n.monitorPort])).size).toBe(9);
    expect(cluster.url.split(',')).toEqual(cluster.nodes.map((n) => `nats://127.0.0.1:${n.port}`));
    expect(cluster.nodes.map((n) => n.name)).toContain(await cluster.metaLeader());
  });

  it('when the meta leader is SIGKILLed, then another node leads, an R3 stream keeps taking writes, and the node rejoins on restart', async () => {
    const nc = await connectNats(cluster.url, 'harness-test');
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'HARNESS', subjects: ['harness.>'], num_replicas: 3, storage: StorageType.File });
    const js = jetstream(nc);
    await js.publish('harness.one', 'before');

    const leader = await cluster.metaLeader();
    await cluster.kill(leader);
    expect(cluster.node(leader).process.running).toBe(false);
    const next = await cluster.metaLeader();
    expect(next).not.toBe(leader);
    // As a client does: a write refused while the survivors elect (JetStreamNotEnabled, a timeout) is sent again.
    let ack: { stream: string } | undefined;
    await until(async () => {
      ack = await js.publish('harness.two', 'during', { timeout: 5_000, msgID: 'harness-two' }).catch(() => undefined);
      return ack !== undefined;
    }, 'a write to the R3 stream without the old meta leader', 30_000, 250);
    expect(ack).toMatchObject({ stream: 'HARNESS' });

    await cluster.restart(leader);
    expect(cluster.node(leader).process.running).toBe(true);
    // Right after the restart the stream's info may come from a replica still catching up (seen on a loaded
    // machine: 1 message for a moment): ask until the group agrees, bounded. The msgID makes a resent write
    // count once, so the count settles at exactly 2, never 3.
    let info = await jsm.streams.info('HARNESS');
    await until(async () => {
      info = await jsm.streams.info('HARNESS');
      return info.state.messages >= 2;
    }, 'the R3 stream to report both writes after the restart', 30_000, 250);
    expect(info.config.num_replicas).toBe(3);
    expect(info.state.messages).toBe(2);
    await nc.close();
  }, 120_000);

  it('when a service ensures its streams with NATS_STREAM_REPLICAS=3 through the server list, then each stream has three replicas, one leader and two current followers', async () => {
    const nc = await connectNats(cluster.url, 'harness-streams');
    const ns = namespace('replicated');
    const jsm = await ensureStreams(nc, ns, ['ORDERS', 'PARTNER_EVENTS'], { replicas: 3 });
    for (const name of ['ORDERS', 'PARTNER_EVENTS'] as const) {
      const info = await jsm.streams.info(ns.stream(name));
      expect(info.config.num_replicas).toBe(3);
      expect(cluster.nodes.map((n) => n.name)).toContain(info.cluster?.leader);
      // A follower on the node restarted by the test before may take a moment to be current on a busy machine.
      await until(async () => (await jsm.streams.info(ns.stream(name))).cluster?.replicas?.filter((peer) => peer.current).length === 2, `two current followers of ${name}`, 30_000, 250);
    }
    await nc.close();
  }, 60_000);

  it('when stopped, then no server runs and the stores are gone', async () => {
    const dirs = cluster.nodes.map((n) => n.storeDir);
    await cluster.stop();
    expect(cluster.nodes.every((n) => !n.process.running)).toBe(true);
    expect(dirs.some((dir) => existsSync(dir))).toBe(false);
  });
});

describe('Redis Cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 90_000);
  afterAll(async () => cluster?.stop());

  it('when started, then six nodes below port 55536 form three masters, each with a replica', async () => {
    expect(cluster.nodes).toHaveLength(6);
    expect(cluster.nodes.every((n) => n.port < 55_536)).toBe(true);
    expect(cluster.seedNodes.split(',')).toHaveLength(6);
    const masters = await cluster.masters();
    expect(masters).toHaveLength(3);
    for (const master of masters) expect(await cluster.replicaOf(master)).toBeTypeOf('number');
  });

  it('when a master is SIGKILLed, then its replica takes over, and the old master rejoins as a replica on restart', async () => {
    const [master] = await cluster.masters();
    const replica = (await cluster.replicaOf(master!))!;
    await cluster.kill(master!);
    await cluster.waitHealthy(30_000);
    expect(await cluster.masters()).toContain(replica);
    expect(await cluster.masters()).not.toContain(master);

    await cluster.restart(master!);
    expect(await cluster.masters()).toHaveLength(3);
    expect(await cluster.replicaOf(replica)).toBe(master);
  }, 120_000);

  it('when stopped, then no node runs and the folders are gone', async () => {
    await cluster.stop();
    expect(cluster.nodes.every((n) => !n.process.running)).toBe(true);
    expect(cluster.nodes.some((n) => existsSync(n.dir))).toBe(false);
  });
});
