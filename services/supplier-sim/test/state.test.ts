// Protects the simulator's memory (§13 "keeps its eSIMs, bundles and use across restarts"): a restart on the same folder answers every earlier reference the same way, keeps use and unsent notifications, the file is replaced atomically, and the state stays bounded.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedSupplier } from '../src/domain/simulatedSupplier.js';
import { SupplierState } from '../src/domain/state.js';
import { StateFile } from '../src/store/stateFile.js';
import { call, cleanUp, newDataDir, newEsim, newTopUp, post, startReceiver, startSim, uniqueReference } from './support/sim.js';

afterAll(cleanUp);

describe('restart', () => {
  it('when the simulator starts again on the same folder, then eSIMs, bundles, use and revocations are as they were', async () => {
    const receiver = await startReceiver();
    const first = await startSim({ SUPPLIER_NOTIFICATION_URL: receiver.url });
    const esim = await newEsim(first, { dataMb: 100 });
    const topUp = await newTopUp(first, esim.iccid, { dataMb: 50 });
    const revoked = await newTopUp(first, esim.iccid);
    expect((await post(`${first.url}/v1/bundles/${revoked}/revoke`)).status).toBe(200);
    expect((await post(`${first.url}/simulator/esims/${esim.iccid}/usage`, { addMb: 120 })).status).toBe(200);
    const before = (await call(`${first.url}/simulator/esims/${esim.iccid}`, 'GET')).body;
    await first.app.close();

    const second = await startSim({ SUPPLIER_NOTIFICATION_URL: receiver.url, SUPPLIER_SIM_DATA_DIR: first.dataDir });
    expect((await call(`${second.url}/simulator/esims/${esim.iccid}`, 'GET')).body).toEqual(before);
    expect(before.bundles.map((b: { status: string; dataUsedMb: number }) => [b.status, b.dataUsedMb])).toEqual([
      ['depleted', 100],
      ['active', 20],
      ['cancelled', 0],
    ]);
    // Every earlier reference is a replay: same answers, nothing new.
    expect(await post(`${second.url}/v1/esims`, { sku: 'ESIM-FR-5GB-30D', reference: esim.reference })).toEqual({ status: 200, body: esim });
    expect(await post(`${second.url}/v1/esims/${esim.iccid}/bundles`, { sku: 'ESIM-FR-1GB-7D', reference: topUp })).toEqual({ status: 200, body: { ...esim, reference: topUp } });
    expect((await post(`${second.url}/v1/bundles/${revoked}/revoke`)).status).toBe(200);
    expect((await post(`${second.url}/v1/bundles/${topUp}/revoke`)).body).toMatchObject({ error: 'bundle_used' });
    // Use goes on from where it was.
    const more = await post(`${second.url}/simulator/esims/${esim.iccid}/usage`, { addMb: 5 });
    expect(more.body.bundles[1]).toMatchObject({ dataUsedMb: 25 });
    expect(receiver.received.at(-1)!.body).toMatchObject({ type: 'bundle.usage', reference: topUp, dataUsedMb: 25 });
  });

  it('when a notification was refused before a restart, then it is sent first, with the same id, after it', async () => {
    const receiver = await startReceiver();
    receiver.status = 400;
    const first = await startSim({ SUPPLIER_NOTIFICATION_URL: receiver.url });
    const esim = await newEsim(first);
    expect((await post(`${first.url}/simulator/esims/${esim.iccid}/install`)).status).toBe(502);
    const refusedId = receiver.received.at(-1)!.body.id;
    await first.app.close();

    receiver.status = 202;
    const second = await startSim({ SUPPLIER_NOTIFICATION_URL: receiver.url, SUPPLIER_SIM_DATA_DIR: first.dataDir });
    const from = receiver.received.length;
    expect((await post(`${second.url}/simulator/esims/${esim.iccid}/expire`)).status).toBe(200);
    expect(receiver.received.slice(from).map((each) => [each.body.id, each.body.type])).toEqual([[refusedId, 'esim.installed']]);
  });

  it('when many orders arrive at once, then every one is on disk when answered and found after a restart', async () => {
    const first = await startSim();
    const issued = await Promise.all(Array.from({ length: 40 }, () => newEsim(first)));
    // What a process that died now would find: the snapshot and its journal.
    const onDisk = await StateFile.open(first.dataDir, 100);
    expect(onDisk.state.snapshot().esims.map((each) => each.iccid).sort()).toEqual(issued.map((each) => each.iccid).sort());
    expect(readdirSync(first.dataDir).sort()).toEqual(['journal.ndjson', 'state.json']);
    await first.app.close();
    const second = await startSim({ SUPPLIER_SIM_DATA_DIR: first.dataDir });
    for (const esim of issued) expect(await call(`${second.url}/v1/esims/${esim.reference}`, 'GET')).toEqual({ status: 200, body: esim });
  });

  it('when the state cannot be written, then the supplier answers 503 and a retry succeeds once it can', async () => {
    const sim = await startSim();
    rmSync(sim.dataDir, { recursive: true, force: true });
    const reference = uniqueReference();
    const refused = await post(`${sim.url}/v1/esims`, { sku: 'ESIM-FR-5GB-30D', reference });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: 'temporarily_unavailable' });
    mkdirSync(sim.dataDir);
    const retried = await post(`${sim.url}/v1/esims`, { sku: 'ESIM-FR-5GB-30D', reference });
    expect(retried.status).toBe(200);
    expect(readFileSync(join(sim.dataDir, 'state.json'), 'utf8')).toContain(retried.body.iccid);
  });

  it('when the state file is not one, then the start fails naming the file', async () => {
    const dataDir = newDataDir();
    writeFileSync(join(dataDir, 'state.json'), '{"version":1,"esims":"nope"}');
    await expect(startSim({ SUPPLIER_SIM_DATA_DIR: dataDir })).rejects.toThrow(/state\.json is not a supplier-sim state file/);
  });
});

describe('bounds', () => {
  it('when more bundles than the bound are known, then the oldest eSIMs are forgotten whole, on disk too', async () => {
    const dataDir = newDataDir();
    const store = await StateFile.open(dataDir, 3);
    const supplier = new SimulatedSupplier(store.state, { smdpAddress: 'smdp.test.example', failureRate: 0 });
    const order = () => {
      const answer = supplier.order('ESIM-FR-5GB-30D', uniqueReference());
      if (answer.kind !== 'issued') throw new Error(answer.kind);
      return answer.located;
    };
    const oldest = order();
    const topUp = supplier.addBundle(oldest.esim.iccid, 'ESIM-FR-1GB-7D', uniqueReference());
    expect(topUp.kind).toBe('issued');
    const middle = order();
    expect(store.state.byIccid(oldest.esim.iccid)).toBeDefined();
    const newest = order();
    // Four bundles over a bound of three: the oldest eSIM goes with both its bundles.
    expect(store.state.byIccid(oldest.esim.iccid)).toBeUndefined();
    expect(supplier.find(oldest.bundle.reference)).toBeUndefined();
    expect(supplier.find(middle.bundle.reference)?.esim.iccid).toBe(middle.esim.iccid);
    await store.persist();

    const reopened = await StateFile.open(dataDir, 3);
    expect(reopened.state.snapshot().esims.map((each) => each.iccid)).toEqual([middle.esim.iccid, newest.esim.iccid]);
    expect(readdirSync(dataDir)).toEqual(['state.json']);
  });

  it('when an eSIM alone holds more bundles than the bound, then it is kept and older eSIMs go', () => {
    const state = new SupplierState(2);
    const supplier = new SimulatedSupplier(state, { smdpAddress: 'smdp.test.example', failureRate: 0 });
    const older = supplier.order('ESIM-FR-5GB-30D', uniqueReference());
    const busy = supplier.order('ESIM-FR-5GB-30D', uniqueReference());
    if (older.kind !== 'issued' || busy.kind !== 'issued') throw new Error('not issued');
    for (let i = 0; i < 3; i++) expect(supplier.addBundle(busy.located.esim.iccid, 'ESIM-FR-1GB-7D', uniqueReference()).kind).toBe('issued');
    expect(state.byIccid(older.located.esim.iccid)).toBeUndefined();
    expect(state.byIccid(busy.located.esim.iccid)?.bundles).toHaveLength(4);
  });
});
