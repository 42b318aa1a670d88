import { randomBytes } from 'node:crypto';
import { seal, webhookSecretRecord } from '@esim/crypto';
import { validationError } from '@esim/errors';
import { enqueueEvent } from '@esim/events';
import { isId, partnerIdOf } from '@esim/ids';
import { withTransaction, type Pool, type Queryable } from '@esim/postgres';
import { isOneOf, partnerEventTypes, type PartnerEventType } from '@esim/vocabulary';
import {
  deleteEndpoint as deleteEndpointRow,
  ensurePrimaryEndpoint,
  findEndpoint,
  insertEndpoint,
  listEndpoints as listEndpointRows,
  lockPartnerEndpoints,
  rotateEndpointSecret as rotateEndpointSecretRow,
  updateEndpoint as updateEndpointRow,
} from '../store/endpointStore.js';
import { endpointNotFound, maxEndpointsPerMode, overlapHoursOf, tooManyEndpoints, type Endpoint, type EndpointView } from './endpoint.js';
import { endpointChangeMail } from './endpointChangeMail.js';
import type { AuditContext, PartnersPort } from './partnersPort.js';

export interface EndpointDeps {
  pool: Pool;
  dataKey: Buffer;
  partners: PartnersPort;
}

export interface EndpointInput {
  url: string;
  description: string;
  eventTypes: string[] | null;
  enabled: boolean;
}

export interface EndpointPatch {
  url?: string | null | undefined;
  description?: string | undefined;
  eventTypes?: string[] | null | undefined;
  enabled?: boolean | undefined;
}

/** `whsec_` + base64 of 32 random bytes, as the Standard Webhooks spec (and the partners service) make them. */
export function generateEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The account's endpoints, oldest first (`partnerId` is an account id: `ptn_X`
 * lists the live endpoints, `ptn_X_test` the test ones, §14). The primary one
 * (the webhookUrl, or the testWebhookUrl of the test account) is listed while
 * it has a URL, and gets its row (its id) the first time it is seen.
 */
export async function listEndpoints(deps: EndpointDeps, partnerId: string): Promise<EndpointView[]> {
  const primaryUrl = (await deps.partners.primaryOf(partnerId)).url;
  if (primaryUrl) await ensurePrimaryEndpoint(deps.pool, partnerId);
  return viewsOf(await listEndpointRows(deps.pool, partnerId), primaryUrl);
}

/**
 * One of the partner's endpoints, of either mode: a partner (its portal JWT,
 * an operator naming it) owns both its accounts, and the id names the mode,
 * so `partnerId` may be either account id of the owner. Everything done to
 * the endpoint after this acts on the endpoint's own account. Another
 * partner's, an unknown id or a primary endpoint without URL: 404.
 */
export async function getEndpoint(deps: EndpointDeps, partnerId: string, id: string): Promise<{ endpoint: Endpoint; view: EndpointView }> {
  const endpoint = isId('whe', id) ? await findEndpoint(deps.pool, id) : undefined;
  if (!endpoint || partnerIdOf(endpoint.partnerId) !== partnerIdOf(partnerId)) throw endpointNotFound(id);
  const url = endpoint.primary ? (await deps.partners.primaryOf(endpoint.partnerId)).url : endpoint.url;
  if (!url) throw endpointNotFound(id);
  return { endpoint, view: viewOf(endpoint, url) };
}

/**
 * A new endpoint with its own signing secret, answered once in clear and
 * stored sealed. At most 10 per mode, the primary one counted while it has a
 * URL; the count and the insert are serialized per partner.
 */
export async function createEndpoint(
  deps: EndpointDeps,
  partnerId: string,
  input: EndpointInput,
  audit: AuditContext | undefined,
): Promise<{ endpoint: EndpointView; secret: string }> {
  const eventTypes = eventTypesOf(input.eventTypes);
  const { url: primaryUrl, email } = await deps.partners.primaryOf(partnerId);
  const secret = generateEndpointSecret();
  const created = await withTransaction(deps.pool, async (db) => {
    await lockPartnerEndpoints(db, partnerId);
    const existing = await listEndpointRows(db, partnerId);
    const counted = existing.filter((endpoint) => !endpoint.primary).length + (primaryUrl ? 1 : 0);
    if (counted >= maxEndpointsPerMode) throw tooManyEndpoints();
    const endpoint = await insertEndpoint(db, {
      partnerId,
      url: input.url,
      description: input.description,
      eventTypes,
      enabled: input.enabled,
      secretSealed: seal(deps.dataKey, secret, webhookSecretRecord(partnerId)),
    });
    await auditEndpoint(db, audit, 'webhook_endpoint.created', endpoint.id, partnerId, { url: input.url });
    await endpointChangeMail(db, email, { change: 'created', endpoint, url: input.url, audit });
    return endpoint;
  });
  return { endpoint: viewOf(created, input.url), secret };
}

/**
 * Changes what the request names. The primary endpoint's URL is the
 * partner's webhookUrl: it is changed at the partners service (null is not
 * accepted here; DELETE removes it).
 */
export async function updateEndpoint(deps: EndpointDeps, requestedBy: string, id: string, patch: EndpointPatch, audit: AuditContext | undefined): Promise<EndpointView> {
  const { endpoint, view } = await getEndpoint(deps, requestedBy, id);
  const partnerId = endpoint.partnerId;
  if (patch.url === null) throw validationError([{ path: 'url', message: 'must be a URL; delete the endpoint to remove it' }]);
  const eventTypes = patch.eventTypes === undefined ? undefined : eventTypesOf(patch.eventTypes);
  if (endpoint.primary && patch.url !== undefined) await deps.partners.setPrimaryUrl(partnerId, patch.url, audit);
  // The primary URL's change is e-mailed by the partners service (as any webhookUrl change); the rest by us.
  const mailed = patch.description !== undefined || eventTypes !== undefined || patch.enabled !== undefined || (!endpoint.primary && patch.url !== undefined);
  const email = mailed ? await emailOf(deps, partnerId) : undefined;
  const updated = await withTransaction(deps.pool, async (db) => {
    const row = await updateEndpointRow(db, id, {
      url: endpoint.primary ? undefined : (patch.url ?? undefined),
      description: patch.description,
      eventTypes,
      enabled: patch.enabled,
    });
    await auditEndpoint(db, audit, 'webhook_endpoint.updated', id, partnerId, { ...patch });
    if (mailed) await endpointChangeMail(db, email, { change: 'updated', endpoint: row, url: row.url ?? patch.url ?? view.url, audit });
    return row;
  });
  const url = endpoint.primary ? (await deps.partners.primaryOf(partnerId)).url : updated.url;
  if (!url) throw endpointNotFound(id);
  return viewOf(updated, url);
}

/**
 * Removes the endpoint; its pending deliveries end `no_endpoint` at their
 * next attempt. Deleting the primary one clears the partner's webhookUrl.
 */
export async function deleteEndpoint(deps: EndpointDeps, requestedBy: string, id: string, audit: AuditContext | undefined): Promise<void> {
  const { endpoint, view } = await getEndpoint(deps, requestedBy, id);
  const partnerId = endpoint.partnerId;
  if (endpoint.primary) await deps.partners.setPrimaryUrl(partnerId, null, audit);
  // The primary one's removal is a webhookUrl cleared: the partners service e-mails it.
  const email = endpoint.primary ? undefined : await emailOf(deps, partnerId);
  await withTransaction(deps.pool, async (db) => {
    await deleteEndpointRow(db, id);
    await auditEndpoint(db, audit, 'webhook_endpoint.deleted', id, partnerId, {});
    if (!endpoint.primary) await endpointChangeMail(db, email, { change: 'deleted', endpoint, url: view.url, audit });
  });
}

/**
 * A new secret, answered once. The old one keeps signing beside it for
 * `overlapHours` (0–72, default 24). One UPDATE (or, for the primary
 * endpoint, one transaction at the partners service): a crash leaves the old
 * state or the new one, never an endpoint without a usable secret.
 */
export async function rotateEndpointSecret(
  deps: EndpointDeps,
  requestedBy: string,
  id: string,
  requestedOverlapHours: number | undefined,
  audit: AuditContext | undefined,
): Promise<{ endpoint: EndpointView; secret: string }> {
  const overlapHours = overlapHoursOf(requestedOverlapHours);
  const { endpoint, view } = await getEndpoint(deps, requestedBy, id);
  const partnerId = endpoint.partnerId;
  if (endpoint.primary) {
    const { secret, announced } = await deps.partners.rotatePrimarySecret(partnerId, overlapHours, audit ?? { operator: `partner:${partnerIdOf(partnerId)}`, requestId: '' });
    // The live secret's rotation is e-mailed (with the secret) by the partners service; the test one's is ours to
    // announce, after the partners service committed it: a crash in between loses that notice (the change is audited there).
    if (!announced) {
      const email = await emailOf(deps, partnerId);
      await endpointChangeMail(deps.pool, email, { change: 'secret_rotated', endpoint, url: view.url, audit });
    }
    return { endpoint: view, secret };
  }
  const secret = generateEndpointSecret();
  const email = await emailOf(deps, partnerId);
  const rotated = await withTransaction(deps.pool, async (db) => {
    const row = await rotateEndpointSecretRow(db, id, seal(deps.dataKey, secret, webhookSecretRecord(partnerId)), overlapHours * 3_600_000);
    await auditEndpoint(db, audit, 'webhook_endpoint.secret_rotated', id, partnerId, { overlapHours });
    await endpointChangeMail(db, email, { change: 'secret_rotated', endpoint: row, url: view.url, audit });
    return row;
  });
  return { endpoint: viewOf(rotated, view.url), secret };
}

/**
 * Where the change notice goes: the partner's address, asked before the
 * transaction (no network call while it is open). A partners outage fails
 * the change rather than making it unannounced (#24).
 */
async function emailOf(deps: EndpointDeps, partnerId: string): Promise<string | undefined> {
  return (await deps.partners.primaryOf(partnerId)).email || undefined;
}

/** Null keeps "every type"; a list must be non-empty and of §9's types (each unknown one named). */
function eventTypesOf(requested: string[] | null): PartnerEventType[] | null {
  if (requested === null) return null;
  if (requested.length === 0) throw validationError([{ path: 'eventTypes', message: 'must be null (every type) or a non-empty list of event types' }]);
  const unknown = requested.map((type, index) => ({ type, index })).filter(({ type }) => !isOneOf(partnerEventTypes, type));
  if (unknown.length > 0) {
    throw validationError(unknown.map(({ type, index }) => ({ path: `eventTypes.${index}`, message: `unknown event type ${type.slice(0, 64)}; one of ${partnerEventTypes.join(', ')}` })));
  }
  return [...new Set(requested as PartnerEventType[])];
}

function viewsOf(endpoints: Endpoint[], primaryUrl: string | undefined): EndpointView[] {
  return endpoints.flatMap((endpoint) => {
    const url = endpoint.primary ? primaryUrl : endpoint.url;
    return url ? [viewOf(endpoint, url)] : [];
  });
}

export function viewOf(endpoint: Endpoint, url: string): EndpointView {
  const { secretSealed: _secret, previousSecretSealed: _previous, previousSecretUntil: _until, ...rest } = endpoint;
  return { ...rest, url };
}

/** An operator's change is written to the audit log in the same transaction; a partner's own change is not an operator action. */
export async function auditEndpoint(
  db: Queryable,
  audit: AuditContext | undefined,
  action: string,
  target: string,
  partnerId: string,
  details: Record<string, unknown>,
): Promise<void> {
  if (!audit) return;
  await enqueueEvent(db, 'webhooks', 'audit.recorded', {
    action,
    target,
    operator: audit.operator,
    requestId: audit.requestId,
    note: audit.note ?? '',
    details: { partnerId, ...details },
    occurredAt: new Date().toISOString(),
  });
}
