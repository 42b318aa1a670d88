// Protects the state journal (docs/decisions.md "The simulator's state journal"): a write appends only what changed, yet a reopen finds exactly the state that was acknowledged — through a torn last line, a compaction, a death between a snapshot and the journal's emptying — and a failed write still surfaces as StateWriteError.
import { appendFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedSmdp } from '../src/domain/simulatedSmdp.js';
import { SimulatedSupplier } from '../src/domain/simulatedSupplier.js';
import { TravellerControl } from '../src/domain/travellerControl.js';
import type { SupplierNotification } from '../src/domain/state.js';
import { StateFile, StateWriteError } from '../src/store/stateFile.js';
import { cleanUp, newDataDir, uniqueReference } from './support/sim.js';

afterAll(cleanUp);

const bound = 100_000;

async function openSim(dataDir: string, maxReferences = bound) {
  const store = await StateFile.open(dataDir, maxReferences);
  const supplier = new SimulatedSupplier(store.state, { smdpAddress: 'smdp.test.example', failureRate: 0 });
  const order = () => {
    const answer = supplier.order('ESIM-FR-5GB-30D', uniqueReference());
    if (answer.kind !== 'issued') throw new Error(answer.kind);
    return answer.located.esim;
  };
  return { store, supplier, order };
}

const journalLines = (dataDir: string) => readFileSync(join(dataDir, 'journal.ndjson'), 'utf8').split('\n').filter(Boolean);
const reopened = async (dataDir: string, maxReferences = bound) => (await StateFile.open(dataDir, maxReferences)).state.snapshot();

function notification(iccid: string, n: number): SupplierNotification {
  return { id: `ntf_${n}_${uniqueReference()}`, type: 'esim.installed', occurredAt: new Date().toISOString(), iccid };
}

describe('journal', () => {
  it('when changes follow the first snapshot, then each write appends one line and a reopen finds them all', async () => {
    const dataDir = newDataDir();
    const { store, supplier, order } = await openSim(dataDir);
    const first = order();
    await store.persist();
    const snapshotText = readFileSync(join(dataDir, 'state.json'), 'utf8');
    const second = order();
    supplier.addBundle(first.iccid, 'ESIM-FR-1GB-7D', uniqueReference());
    await store.persist();
    expect(supplier.setSuspended(second.iccid, true).kind).toBe('done');
    await store.persist();

    expect(readFileSync(join(dataDir, 'state.json'), 'utf8')).toBe(snapshotText);
    expect(journalLines(dataDir)).toHaveLength(2);
    expect(await reopened(dataDir)).toEqual(store.state.snapshot());
    expect((await reopened(dataDir)).esims.map((each) => [each.iccid, each.bundles.length, each.suspended])).toEqual([
      [first.iccid, 2, false],
      [second.iccid, 1, true],
    ]);
  });

  it('when the last line is torn, then it is ignored, and the next write is a snapshot so nothing follows it', async () => {
    const dataDir = newDataDir();
    const { store, order } = await openSim(dataDir);
    order();
    await store.persist();
    order();
    await store.persist();
    const acknowledged = store.state.snapshot();
    appendFileSync(join(dataDir, 'journal.ndjson'), '{"changes":99,"removed":[],"esims":[{"iccid":"89');

    const next = await openSim(dataDir);
    expect(next.store.state.snapshot()).toEqual(acknowledged);
    const third = next.order();
    await next.store.persist();
    expect(readFileSync(join(dataDir, 'journal.ndjson'), 'utf8')).toBe('');
    expect((await reopened(dataDir)).esims.at(-1)?.iccid).toBe(third.iccid);
  });

  it('when the journal outgrows the snapshot, then it is compacted into a new snapshot and everything is kept', async () => {
    const dataDir = newDataDir();
    const { store, order } = await openSim(dataDir);
    let compactions = 0;
    let previousJournal = 0;
    for (let i = 0; i < 900; i++) {
      order();
      await store.persist();
      const size = statSync(join(dataDir, 'journal.ndjson'), { throwIfNoEntry: false })?.size ?? 0;
      if (size < previousJournal) compactions += 1;
      previousJournal = size;
    }
    expect(compactions).toBeGreaterThan(0);
    const state = await reopened(dataDir);
    expect(state.esims).toHaveLength(900);
    expect(state).toEqual(store.state.snapshot());
  });

  it('when a snapshot is newer than the journal lines beside it, then the snapshot wins', async () => {
    const dataDir = newDataDir();
    const { store, supplier, order } = await openSim(dataDir);
    const esim = order();
    await store.persist();
    supplier.setSuspended(esim.iccid, true);
    await store.persist();
    const olderJournal = readFileSync(join(dataDir, 'journal.ndjson'), 'utf8');
    supplier.setSuspended(esim.iccid, false);
    // A change no eSIM names forces a snapshot, which empties the journal.
    store.state.changed();
    await store.persist();
    // A death between the snapshot's rename and the journal's emptying leaves the older lines.
    writeFileSync(join(dataDir, 'journal.ndjson'), olderJournal);

    const state = await reopened(dataDir);
    expect(state.esims[0]?.suspended).toBe(false);
    expect(state).toEqual(store.state.snapshot());
  });

  it('when notifications are queued and delivered across writes, then the outbox comes back in order', async () => {
    const dataDir = newDataDir();
    const { store, order } = await openSim(dataDir);
    const esim = order();
    await store.persist();
    const sent = [1, 2, 3, 4].map((n) => notification(esim.iccid, n));
    store.state.enqueue(sent.slice(0, 2));
    await store.persist();
    store.state.delivered();
    store.state.enqueue(sent.slice(2, 3));
    await store.persist();
    store.state.enqueue(sent.slice(3));
    await store.persist();

    expect((await reopened(dataDir)).outbox.map((each) => each.id)).toEqual(sent.slice(1).map((each) => each.id));
  });

  it('when eSIMs are forgotten past the bound between snapshots, then they stay forgotten after a reopen, in the same order', async () => {
    const dataDir = newDataDir();
    const { store, order } = await openSim(dataDir, 2);
    order();
    await store.persist();
    const kept = [order(), order()];
    await store.persist();
    expect((await reopened(dataDir, 2)).esims.map((each) => each.iccid)).toEqual(kept.map((each) => each.iccid));
    // Even under a larger bound: the removal is in the journal.
    expect((await reopened(dataDir)).esims.map((each) => each.iccid)).toEqual(kept.map((each) => each.iccid));
  });

  it('when the SM-DP+ and the traveller change eSIMs in place, then the journal carries every change', async () => {
    const dataDir = newDataDir();
    const { store, supplier, order } = await openSim(dataDir);
    order();
    await store.persist();
    const smdp = new SimulatedSmdp(store.state, 'smdp.test.example');
    const downloaded = smdp.downloadOrder('call-1', { profileType: 'esim-data' });
    if (!downloaded.ok) throw new Error('download refused');
    expect(smdp.confirmOrder('call-2', { iccid: downloaded.data.iccid, releaseFlag: false }).ok).toBe(true);
    await store.persist();
    expect(smdp.releaseProfile('call-3', { iccid: downloaded.data.iccid }).ok).toBe(true);
    await store.persist();
    const reference = uniqueReference();
    expect(supplier.order('ESIM-FR-5GB-30D', reference, { dataMb: 100 }, downloaded.data.iccid).kind).toBe('issued');
    await store.persist();
    let refuse = true;
    const control = new TravellerControl(store, { es2: true, send: async () => (refuse ? { status: 500, reason: 'down' } : undefined) });
    expect((await control.act(downloaded.data.iccid, { kind: 'usage', addMb: 30 })).kind).toBe('refused');
    expect(await reopened(dataDir)).toEqual(store.state.snapshot());
    refuse = false;
    expect((await control.act(downloaded.data.iccid, { kind: 'usage', addMb: 5 })).kind).toBe('done');
    expect(supplier.revoke(reference).kind).toBe('bundle_used');

    const state = await reopened(dataDir);
    expect(state).toEqual(store.state.snapshot());
    expect(state.outbox).toEqual([]);
    expect(state.esims[1]).toMatchObject({ status: 'installed', callIds: ['call-1', 'call-2', 'call-3'], bundles: [{ dataUsedMb: 35, status: 'active' }] });
  });

  it('when an append fails, then persist rejects with StateWriteError, and the retry writes a whole snapshot', async () => {
    const dataDir = newDataDir();
    const { store, order } = await openSim(dataDir);
    const first = order();
    await store.persist();
    rmSync(dataDir, { recursive: true, force: true });
    const second = order();
    await expect(store.persist()).rejects.toBeInstanceOf(StateWriteError);
    mkdirSync(dataDir);
    await store.persist();
    expect((await reopened(dataDir)).esims.map((each) => each.iccid)).toEqual([first.iccid, second.iccid]);
  });

  it('when state.json was written before the journal existed, then it opens', async () => {
    const dataDir = newDataDir();
    const { store, order } = await openSim(dataDir);
    const esim = order();
    await store.persist();
    const { changes: _, ...older } = JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dataDir, 'state.json'), JSON.stringify(older));
    rmSync(join(dataDir, 'journal.ndjson'), { force: true });
    expect((await reopened(dataDir)).esims.map((each) => each.iccid)).toEqual([esim.iccid]);
  });
});
