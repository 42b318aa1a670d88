import { AppError, validationError } from '@esim/errors';
import type { PartnerEventType } from '@esim/vocabulary';

/** At most this many endpoints per partner and mode, the primary one included (§9). */
export const maxEndpointsPerMode = 10;
/** A rotation's overlap: 0–72 hours, 24 unless asked (§9). */
export const overlapHoursMax = 72;
export const overlapHoursDefault = 24;
/** Events are kept, and recoverable, for this long (§9 recover, docs/webhooks.md). */
export const eventRetentionMs = 30 * 86_400_000;
/** Auto-disable needs at least this many failed attempts as well as WEBHOOK_DISABLE_AFTER of failing (§9). */
export const disableAfterAttempts = 10;

/** A partner's webhook endpoint as stored (whe_…). */
export interface Endpoint {
  id: string;
  partnerId: string;
  livemode: boolean;
  /** The partner's webhookUrl: URL and secret live with the partners service. */
  primary: boolean;
  /** null for the primary one (its URL is the partner's webhookUrl). */
  url: string | null;
  description: string;
  /** null: every type. */
  eventTypes: PartnerEventType[] | null;
  enabled: boolean;
  disabledReason: 'failing' | null;
  secretSealed: string | null;
  previousSecretSealed: string | null;
  previousSecretUntil: Date | null;
  createdAt: Date;
}

/** The endpoint as the API shows it; the primary one's URL is filled in from the partners service. */
export interface EndpointView extends Omit<Endpoint, 'secretSealed' | 'previousSecretSealed' | 'previousSecretUntil' | 'url'> {
  url: string;
}

export function endpointNotFound(id: string): AppError {
  return new AppError('NOT_FOUND', `No webhook endpoint ${id.slice(0, 64)}.`);
}

export function tooManyEndpoints(): AppError {
  return validationError([{ path: 'url', message: `a partner has at most ${maxEndpointsPerMode} webhook endpoints per mode; delete one first` }]);
}

export function overlapHoursOf(requested: number | undefined): number {
  if (requested === undefined) return overlapHoursDefault;
  if (!Number.isInteger(requested) || requested < 0 || requested > overlapHoursMax) {
    throw validationError([{ path: 'overlapHours', message: `must be an integer from 0 to ${overlapHoursMax}` }]);
  }
  return requested;
}

/** Does this endpoint take events of this type? */
export function takes(endpoint: Pick<Endpoint, 'eventTypes'>, type: PartnerEventType): boolean {
  return endpoint.eventTypes === null || endpoint.eventTypes.includes(type);
}

/** The endpoint in an event (`webhook.endpoint_disabled`) and, through the gateway, in the API. */
export function endpointPayload(endpoint: EndpointView) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes,
    enabled: endpoint.enabled,
    livemode: endpoint.livemode,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt.toISOString(),
  };
}

/** 432000000 → "5 days", 3600000 → "1 hour": for the disable notice. */
export function humanDuration(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms / size === 1 ? '' : 's'}`;
  }
  return `${ms} ms`;
}
