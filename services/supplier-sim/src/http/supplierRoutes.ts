import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { iccidPattern } from '@esim/ids';
import type { Logger } from '@esim/telemetry';
import type { IssueAnswer, RevokeAnswer, SimulatedSupplier } from '../domain/simulatedSupplier.js';
import type { Located } from '../domain/state.js';
import { badRequest, decodePathSegment, notFound, readJson, type Answer } from './json.js';

/** Bounded so that sums of megabytes stay exact integers. */
const bundleSize = {
  dataMb: z.number().int().positive().max(10_000_000).optional(),
  validityDays: z.number().int().positive().max(3_650).optional(),
};

const orderRequest = z.object({
  /** The ICCID the SM-DP+ issued (contract §8); absent: the older API, the simulator issues the profile. */
  iccid: z.string().regex(iccidPattern).optional(),
  sku: z.string().min(1).max(64),
  reference: z.string().min(1).max(128),
  ...bundleSize,
});

const orderRequestHelp = 'Send a JSON object with string fields "sku" and "reference", and optionally positive integers "dataMb" and "validityDays".';

/** The eSIM's profile, named by the reference the caller used (its first bundle's or a top-up's); profile fields only when this simulator's SM-DP+ side made it. */
const profileView = ({ esim, bundle }: Located) => ({
  reference: bundle.reference,
  iccid: esim.iccid,
  ...(esim.matchingId ? { smdpAddress: esim.smdpAddress, matchingId: esim.matchingId, activationCode: esim.activationCode } : {}),
});

const unavailable = (message: string): Answer => ({ status: 503, body: { error: 'temporarily_unavailable', message }, outcome: 'unavailable' });
const conflict = (error: string, message: string): Answer => ({ status: 409, body: { error, message }, outcome: error });

/**
 * The supplier API the platform's provisioning service calls (contract §8,
 * §13): `POST /v1/esims`, `GET /v1/esims/{reference}`,
 * `POST /v1/esims/{iccid}/bundles`, `POST /v1/bundles/{reference}/revoke`.
 * Returns undefined for a path that is not one of them.
 */
export function supplierRoute(req: IncomingMessage, path: string, deps: { supplier: SimulatedSupplier; logger: Logger }): Promise<Answer> | undefined {
  const { supplier, logger } = deps;
  const post = req.method === 'POST';
  if (path === '/v1/esims') return post ? issue(req, (body) => supplier.order(body.sku, body.reference, body, body.iccid)) : undefined;
  const suspension = /^\/v1\/esims\/([^/]+)\/(suspend|resume)$/.exec(path);
  if (suspension?.[1] && post) {
    req.resume();
    const answer = supplier.setSuspended(decodePathSegment(suspension[1]), suspension[2] === 'suspend');
    if (answer.kind === 'done') return Promise.resolve({ status: 200, body: { iccid: answer.esim.iccid, suspended: answer.esim.suspended }, outcome: suspension[2]! });
    if (answer.kind === 'unavailable') return Promise.resolve(unavailable(answer.message));
    if (answer.kind === 'esim_revoked') return Promise.resolve(conflict('esim_revoked', 'The eSIM was revoked.'));
    return Promise.resolve(notFound);
  }
  const esim = /^\/v1\/esims\/([^/]+)$/.exec(path);
  if (esim?.[1] && req.method === 'GET') {
    const located = supplier.find(decodePathSegment(esim[1]));
    return Promise.resolve(located ? { status: 200, body: profileView(located), outcome: 'found' } : notFound);
  }
  const bundles = /^\/v1\/esims\/([^/]+)\/bundles$/.exec(path);
  if (bundles?.[1] && post) {
    const iccid = decodePathSegment(bundles[1]);
    return issue(req, (body) => supplier.addBundle(iccid, body.sku, body.reference, body));
  }
  const revoke = /^\/v1\/bundles\/([^/]+)\/revoke$/.exec(path);
  if (revoke?.[1] && post) return Promise.resolve(revokeAnswer(supplier.revoke(decodePathSegment(revoke[1]))));
  return undefined;

  async function issue(request: IncomingMessage, act: (body: z.output<typeof orderRequest>) => IssueAnswer): Promise<Answer> {
    const parsed = orderRequest.safeParse(await readJson(request));
    if (!parsed.success) return badRequest(orderRequestHelp);
    const answer = act(parsed.data);
    switch (answer.kind) {
      case 'issued': {
        const { located, replayed } = answer;
        if (!replayed) logger.info({ reference: located.bundle.reference, sku: located.bundle.sku, iccid: located.esim.iccid }, 'bundle issued');
        return { status: replayed ? 200 : 201, body: profileView(located), outcome: replayed ? 'replayed' : 'issued' };
      }
      case 'rejected':
        return { status: 422, body: { error: 'sku_rejected', message: answer.message }, outcome: 'rejected' };
      case 'unavailable':
        return unavailable(answer.message);
      case 'not_found':
        return notFound;
      case 'esim_revoked':
        return conflict('esim_revoked', 'The eSIM was revoked; it takes no more bundles.');
      case 'reference_conflict':
        return conflict('reference_conflict', 'This reference already names another bundle.');
    }
  }
}

function revokeAnswer(answer: RevokeAnswer): Answer {
  switch (answer.kind) {
    case 'revoked': {
      const { esim, bundle } = answer.located;
      return { status: 200, body: { reference: bundle.reference, iccid: esim.iccid, status: 'revoked' }, outcome: 'revoked' };
    }
    case 'unavailable':
      return unavailable(answer.message);
    case 'not_found':
      return notFound;
    case 'bundle_used':
      return conflict('bundle_used', 'The bundle has been used; it can no longer be revoked.');
    case 'esim_installed':
      return conflict('esim_installed', 'The eSIM is installed on a device; it can no longer be revoked.');
  }
}
