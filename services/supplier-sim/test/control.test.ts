// Protects the simulator's control API (§13): the traveller's install, use and expiry change the simulator's eSIM by the platform's own rules, and each is reported to a real receiver as signed notifications, exactly shaped, in order, before the control call answers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanUp, newEsim, newTopUp, post, startReceiver, startSim, until, type Sim } from './support/sim.js';

let sim: Sim;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  sim = await startSim({ SUPPLIER_NOTIFICATION_URL: receiver.url });
});
beforeEach(() => {
  receiver.status = 202;
  receiver.hold = false;
});
afterAll(cleanUp);

const control = (iccid: string, verb: 'install' | 'usage' | 'expire', body?: unknown) => post(`${sim.url}/simulator/esims/${iccid}/${verb}`, body);

/** The notifications the receiver got during `run`, as parsed bodies. */
async function notificationsOf(run: () => Promise<unknown>) {
  const from = receiver.received.length;
  await run();
  return receiver.received.slice(from).map((each) => each.body);
}

const anId = expect.stringMatching(/^ntf_[0-9a-f]{24}$/);
const anInstant = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const dayMs = 86_400_000;

describe('notifications', () => {
  it('when use comes on a never installed eSIM, then esim.installed then bundle.usage are sent, signed, and the view answers 200', async () => {
    const esim = await newEsim(sim, { dataMb: 500 });
    const from = receiver.received.length;
    const answer = await control(esim.iccid, 'usage', { addMb: 120 });
    expect(answer.status).toBe(200);
    const sent = receiver.received.slice(from);
    expect(sent.map((each) => each.body)).toEqual([
      { id: anId, type: 'esim.installed', occurredAt: anInstant, iccid: esim.iccid },
      { id: anId, type: 'bundle.usage', occurredAt: anInstant, iccid: esim.iccid, reference: esim.reference, dataUsedMb: 120 },
    ]);
    expect(Object.keys(sent[0]!.body)).toEqual(['id', 'type', 'occurredAt', 'iccid']);
    expect(sent[0]!.body.id).not.toBe(sent[1]!.body.id);
    for (const each of sent) {
      expect(each.signatureValid).toBe(true);
      expect(each.headers['x-supplier-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(each.headers['content-type']).toBe('application/json');
      expect(Math.abs(Date.now() / 1000 - each.timestamp)).toBeLessThan(300);
      // Compact JSON: the signed bytes are exactly JSON.stringify of the body.
      expect(each.raw).toBe(JSON.stringify(each.body));
    }
    const bundle = answer.body.bundles[0];
    expect(answer.body).toMatchObject({ iccid: esim.iccid, status: 'installed' });
    expect(bundle).toMatchObject({ reference: esim.reference, dataMb: 500, dataUsedMb: 120, status: 'active', activatedAt: anInstant });
    expect(Date.parse(bundle.expiresAt) - Date.parse(bundle.activatedAt)).toBe(30 * dayMs);
  });

  it('when the eSIM is installed, then one esim.installed is sent and a second install sends nothing', async () => {
    const esim = await newEsim(sim);
    expect(await notificationsOf(() => control(esim.iccid, 'install'))).toEqual([{ id: anId, type: 'esim.installed', occurredAt: anInstant, iccid: esim.iccid }]);
    const again = await notificationsOf(async () => expect((await control(esim.iccid, 'install')).body).toMatchObject({ status: 'installed' }));
    expect(again).toEqual([]);
    expect((await notificationsOf(() => control(esim.iccid, 'usage', { addMb: 1 }))).map((n) => n.type)).toEqual(['bundle.usage']);
  });

  it('when the receiver holds its answer, then the control call answers only after the receiver answered', async () => {
    const esim = await newEsim(sim);
    receiver.hold = true;
    const from = receiver.received.length;
    let settled = false;
    const call = control(esim.iccid, 'install').finally(() => {
      settled = true;
    });
    await until(() => receiver.received.length > from, 'the notification to arrive');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    receiver.release();
    expect((await call).status).toBe(200);
  });
});

describe('usage rules', () => {
  it('when use crosses bundles, then it fills each in creation order, activating the next queued one, and drops what none can hold', async () => {
    const esim = await newEsim(sim, { dataMb: 100, validityDays: 30 });
    const second = await newTopUp(sim, esim.iccid, { dataMb: 50, validityDays: 7 });
    const third = await newTopUp(sim, esim.iccid, { dataMb: 30, validityDays: 1 });
    await control(esim.iccid, 'usage', { addMb: 40 });

    const usage = (reference: string, dataUsedMb: number) => ({ id: anId, type: 'bundle.usage', occurredAt: anInstant, iccid: esim.iccid, reference, dataUsedMb });
    let answer: Awaited<ReturnType<typeof control>> | undefined;
    const across = await notificationsOf(async () => (answer = await control(esim.iccid, 'usage', { addMb: 80 })));
    expect(across).toEqual([usage(esim.reference, 100), usage(second, 20)]);
    expect(answer!.body.bundles.map((b: { status: string; dataUsedMb: number }) => [b.status, b.dataUsedMb])).toEqual([
      ['depleted', 100],
      ['active', 20],
      ['queued', 0],
    ]);
    const active = answer!.body.bundles[1];
    expect(Date.parse(active.expiresAt) - Date.parse(active.activatedAt)).toBe(7 * dayMs);
    expect(answer!.body.bundles[2]).toMatchObject({ activatedAt: null, expiresAt: null });

    const beyond = await notificationsOf(async () => (answer = await control(esim.iccid, 'usage', { addMb: 1000 })));
    expect(beyond).toEqual([usage(second, 50), usage(third, 30)]);
    expect(answer!.body.bundles.map((b: { status: string }) => b.status)).toEqual(['depleted', 'depleted', 'depleted']);

    const nothingLeft = await notificationsOf(async () => (answer = await control(esim.iccid, 'usage', { addMb: 5 })));
    expect(nothingLeft).toEqual([]);
    expect(answer!.status).toBe(200);
    expect(answer!.body.bundles.map((b: { dataUsedMb: number }) => b.dataUsedMb)).toEqual([100, 50, 30]);
  });

  it('when the active bundle expires, then bundle.expired is sent and the next use starts the next queued bundle', async () => {
    const esim = await newEsim(sim, { dataMb: 100 });
    const topUp = await newTopUp(sim, esim.iccid, { dataMb: 100 });
    const nothingActive = await notificationsOf(async () => expect((await control(esim.iccid, 'expire')).status).toBe(200));
    expect(nothingActive).toEqual([]);

    await control(esim.iccid, 'usage', { addMb: 10 });
    let answer: Awaited<ReturnType<typeof control>> | undefined;
    const expired = await notificationsOf(async () => (answer = await control(esim.iccid, 'expire')));
    expect(expired).toEqual([{ id: anId, type: 'bundle.expired', occurredAt: anInstant, iccid: esim.iccid, reference: esim.reference }]);
    expect(answer!.body.bundles[0]).toMatchObject({ status: 'expired', dataUsedMb: 10, expiresAt: expired[0]!.occurredAt });
    expect(answer!.body.bundles[1]).toMatchObject({ status: 'queued' });

    const next = await notificationsOf(async () => (answer = await control(esim.iccid, 'usage', { addMb: 5 })));
    expect(next.map((n) => [n.type, n.reference, n.dataUsedMb])).toEqual([['bundle.usage', topUp, 5]]);
    expect(answer!.body.bundles.map((b: { status: string }) => b.status)).toEqual(['expired', 'active']);
  });

  it('when the eSIM was revoked, then install, use and expire change nothing and send nothing', async () => {
    const esim = await newEsim(sim);
    expect((await post(`${sim.url}/v1/bundles/${esim.reference}/revoke`)).status).toBe(200);
    const sent = await notificationsOf(async () => {
      for (const [verb, body] of [['install'], ['usage', { addMb: 10 }], ['expire']] as const) {
        const answer = await control(esim.iccid, verb, body);
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ status: 'revoked', bundles: [{ status: 'cancelled', dataUsedMb: 0 }] });
      }
    });
    expect(sent).toEqual([]);
  });
});

describe('refusals and errors', () => {
  it('when the platform keeps failing, then 502 notification_refused after retries; the next call sends the waiting notification first, same id', async () => {
    const esim = await newEsim(sim);
    receiver.status = 503;
    const from = receiver.received.length;
    const refused = await control(esim.iccid, 'install');
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ error: 'notification_refused' });
    const attempts = receiver.received.slice(from).map((each) => each.body);
    expect(attempts.length).toBeGreaterThan(1);
    expect(new Set(attempts.map((n) => n.id)).size).toBe(1);

    // Still refused: the waiting notification blocks a new action, which changes nothing.
    receiver.status = 400;
    expect((await control(esim.iccid, 'usage', { addMb: 10 })).status).toBe(502);

    receiver.status = 202;
    const sent = await notificationsOf(async () => expect((await control(esim.iccid, 'usage', { addMb: 10 })).status).toBe(200));
    expect(sent.map((n) => n.type)).toEqual(['esim.installed', 'bundle.usage']);
    expect(sent[0]!.id).toBe(attempts[0]!.id);
    expect(sent[1]).toMatchObject({ dataUsedMb: 10 });
  });

  it('when the ICCID was never issued, then 404 not_found for every action', async () => {
    for (const [verb, body] of [['install'], ['usage', { addMb: 10 }], ['expire']] as const) {
      expect(await control('8900000000000000001', verb, body)).toEqual({ status: 404, body: { error: 'not_found' } });
    }
  });

  it.each([
    ['no addMb', {}],
    ['a zero addMb', { addMb: 0 }],
    ['a negative addMb', { addMb: -5 }],
    ['a fractional addMb', { addMb: 1.5 }],
    ['a string addMb', { addMb: '10' }],
    ['not JSON', '{"addMb":'],
    ['nothing', undefined],
  ])('when usage is sent %s, then 400 bad_request and nothing is sent', async (_, body) => {
    const esim = await newEsim(sim);
    const sent = await notificationsOf(async () => {
      const answer = await control(esim.iccid, 'usage', body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'bad_request' });
    });
    expect(sent).toEqual([]);
  });

  it('when no notification URL is configured, then the control API answers 503 not_configured and the supplier API still works', async () => {
    const bare = await startSim();
    const esim = await newEsim(bare);
    const answer = await post(`${bare.url}/simulator/esims/${esim.iccid}/install`);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ error: 'not_configured', message: expect.stringContaining('SUPPLIER_NOTIFICATION_URL') });
  });
});
