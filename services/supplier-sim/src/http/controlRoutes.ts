import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { SimEsim } from '../domain/state.js';
import type { ControlAction, ControlAnswer, TravellerControl } from '../domain/travellerControl.js';
import type { SupplierState } from '../domain/state.js';
import { badRequest, decodePathSegment, notFound, readJson, type Answer } from './json.js';

const usageRequest = z.object({ addMb: z.number().int().positive() });
const installRequest = z.object({ fail: z.boolean().optional() });

/** The simulator's view of an eSIM: what it would report, and what the platform's view should converge to. */
export const simulatorView = (esim: SimEsim) => ({
  iccid: esim.iccid,
  status: esim.status,
  eid: esim.eid,
  suspended: esim.suspended,
  bundles: esim.bundles.map(({ reference, sku, dataMb, dataUsedMb, validityDays, status, activatedAt, expiresAt }) => ({
    reference,
    sku,
    dataMb,
    dataUsedMb,
    validityDays,
    status,
    activatedAt,
    expiresAt,
  })),
});

const notConfigured: Answer = {
  status: 503,
  body: {
    error: 'not_configured',
    message: 'SUPPLIER_NOTIFICATION_URL is not set, so the simulator has nowhere to report what happens; set it to the platform\'s /supplier/v1/notifications.',
  },
  outcome: 'not_configured',
};

/**
 * The control API (contract §13): `POST /simulator/esims/{iccid}/install`,
 * `…/usage {addMb}`, `…/expire`, and `GET /simulator/esims/{iccid}` (the
 * view alone, nothing sent). `control` is absent when no notification URL
 * is configured. Returns undefined for a path that is not one of them.
 */
export function controlRoute(req: IncomingMessage, path: string, deps: { state: SupplierState; control: TravellerControl | undefined }): Promise<Answer> | undefined {
  const match = /^\/simulator\/esims\/([^/]+)(?:\/(install|delete|usage|expire))?$/.exec(path);
  if (!match?.[1]) return undefined;
  const iccid = decodePathSegment(match[1]);
  const verb = match[2];
  if (!verb) {
    if (req.method !== 'GET') return undefined;
    const esim = deps.state.byIccid(iccid);
    return Promise.resolve(esim ? { status: 200, body: simulatorView(esim), outcome: 'viewed' } : notFound);
  }
  if (req.method !== 'POST') return undefined;
  return act(req, iccid, verb, deps.control);
}

async function act(req: IncomingMessage, iccid: string, verb: string, control: TravellerControl | undefined): Promise<Answer> {
  if (!control) return notConfigured;
  let action: ControlAction;
  if (verb === 'usage') {
    const parsed = usageRequest.safeParse(await readJson(req));
    if (!parsed.success) return badRequest('Send a JSON object whose "addMb" is a positive integer (megabytes used).');
    action = { kind: 'usage', addMb: parsed.data.addMb };
  } else if (verb === 'install') {
    // The body is optional: none (or {}) installs, { "fail": true } reports a failed installation.
    const body = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] ? await readJson(req) : {};
    const parsed = installRequest.safeParse(body ?? {});
    if (!parsed.success) return badRequest('Send no body, or a JSON object whose optional "fail" is a boolean.');
    action = { kind: 'install', fail: parsed.data.fail ?? false };
  } else {
    // delete and expire take no body; whatever is sent is not read.
    req.resume();
    action = { kind: verb === 'delete' ? 'delete' : 'expire' };
  }
  return controlAnswer(await control.act(iccid, action), verb);
}

function controlAnswer(answer: ControlAnswer, verb: string): Answer {
  switch (answer.kind) {
    case 'done':
      return { status: 200, body: simulatorView(answer.esim), outcome: verb };
    case 'not_found':
      return notFound;
    case 'refused':
      return {
        status: 502,
        body: { error: 'notification_refused', message: `The platform did not accept a notification (${answer.refusal.reason}); the next control call sends it again first.` },
        outcome: 'notification_refused',
      };
  }
}
