import { z } from 'zod';

/**
 * GSMA SGP.22 ES2+ (operator ⇄ SM-DP+), JSON binding of §6.5, declared once:
 * one object per function with its path, its request and response bodies
 * and the HTTP status of a success. The platform's client encodes with it,
 * its HandleDownloadProgressInfo server and the simulator's SM-DP+ validate
 * with it, so the three cannot drift. Shaped after osmocom pySim's
 * `es2p.py` (one declaration per function, mandatory fields listed).
 */

/** Sent on every request and answer (SGP.22 §6.5.1: `X-Admin-Protocol: gsma/rsp/v2.<x>.<y>`). */
export const adminProtocol = 'gsma/rsp/v2.5.0';
export const adminProtocolHeader = 'x-admin-protocol';
/** What an answer's X-Admin-Protocol must look like to be read as ES2+ v2. */
export const adminProtocolPattern = /^gsma\/rsp\/v2\.\d+\.\d+$/;

export const basePath = '/gsma/rsp2/es2plus';

/** The four values of `functionExecutionStatus.status` (SGP.22 §6.5.1.4). */
export const executionStatuses = ['Executed-Success', 'Executed-WithWarning', 'Failed', 'Expired'] as const;
export type ExecutionStatus = (typeof executionStatuses)[number];
export const isExecuted = (status: string) => status === 'Executed-Success' || status === 'Executed-WithWarning';

const text = (max: number) => z.string().min(1).max(max);
/**
 * An optional field, read leniently: absent or JSON null both mean "not
 * given" (SGP.22 omits optional fields; some implementations send null).
 */
const maybe = <T extends z.ZodType>(inner: T) => inner.nullish().transform((value) => value ?? undefined);

/**
 * ICCID on the wire: 19 or 20 digits, a 19-digit one optionally padded with
 * a trailing F (pySim pads). The platform names eSIMs by 18–22 digits
 * (contract §3), so a tolerant reader takes 18–22 digits plus an optional F
 * and strips the F.
 */
export const wireIccid = z
  .string()
  .regex(/^\d{18,22}[Ff]?$/, 'must be 18–22 digits (a trailing F pad allowed)')
  .transform((value) => value.replace(/[Ff]$/, ''));
/** EID: 32 decimal digits. */
export const wireEid = z.string().regex(/^\d{32}$/, 'must be 32 digits');
/** An FQDN such as smdp.example.com. */
export const wireFqdn = z.string().regex(/^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/, 'must be a host name').max(253);

export const requestHeader = z.object({
  functionRequesterIdentifier: text(256),
  functionCallIdentifier: text(256),
});
export type RequestHeader = z.output<typeof requestHeader>;

export const statusCodeData = z.object({
  subjectCode: text(64),
  reasonCode: text(64),
  subjectIdentifier: z.string().max(256).nullish().transform((value) => value ?? undefined),
  message: z.string().max(1024).nullish().transform((value) => value ?? undefined),
});
/** Why a function failed (SGP.22 §5.1.6.4); what `statusCodeData` parses to and what refusals are written from. */
export interface StatusCodeData {
  subjectCode: string;
  reasonCode: string;
  subjectIdentifier?: string | undefined;
  message?: string | undefined;
}

/** Read leniently: an unknown status is kept as a string, so the caller can sort it (it is a refusal, not a crash). */
export const responseHeader = z.object({
  functionExecutionStatus: z.object({
    status: text(64),
    statusCodeData: statusCodeData.nullish().transform((value) => value ?? undefined),
  }),
});
export type ResponseHeader = z.output<typeof responseHeader>;

/** One ES2+ function: where it is, what goes in, what comes back on success, and the HTTP status of that success. */
export interface Es2Function<In extends z.ZodType, Out extends z.ZodType> {
  name: string;
  path: string;
  request: In;
  response: Out;
  successStatus: 200 | 204;
}

const fn = <In extends z.ZodType, Out extends z.ZodType>(name: string, request: In, response: Out, successStatus: 200 | 204 = 200): Es2Function<In, Out> => ({
  name,
  path: `${basePath}/${name}`,
  request,
  response,
  successStatus,
});

const withHeader = <T extends z.ZodRawShape>(shape: T) => z.object({ header: requestHeader, ...shape });
const answered = <T extends z.ZodRawShape>(shape: T) => z.object({ header: responseHeader, ...shape });

/** SGP.22 §5.3.1: reserve a profile (of `profileType`, or the named `iccid`) for an optional EID. */
export const downloadOrder = fn(
  'downloadOrder',
  withHeader({ eid: wireEid.optional(), iccid: wireIccid.optional(), profileType: text(256).optional() }),
  answered({ iccid: wireIccid }),
);

/** SGP.22 §5.3.2: confirm the reserved profile; with `releaseFlag: true` it is released for download at once. */
export const confirmOrder = fn(
  'confirmOrder',
  withHeader({
    iccid: wireIccid,
    eid: wireEid.optional(),
    matchingId: text(256).optional(),
    confirmationCode: text(256).optional(),
    smdsAddress: wireFqdn.optional(),
    releaseFlag: z.boolean(),
  }),
  answered({ eid: maybe(wireEid), matchingId: text(256), smdpAddress: maybe(wireFqdn) }),
);

/** Final states a cancelled order leaves its profile in (SGP.22 §5.3.3). */
export const finalProfileStatusIndicators = ['Available', 'Unavailable'] as const;

/** SGP.22 §5.3.3: cancel an order not yet downloaded. */
export const cancelOrder = fn(
  'cancelOrder',
  withHeader({
    iccid: wireIccid,
    eid: wireEid.optional(),
    matchingId: text(256).optional(),
    finalProfileStatusIndicator: z.enum(finalProfileStatusIndicators),
  }),
  answered({}),
);

/** SGP.22 §5.3.4: release a confirmed (not released) profile. */
export const releaseProfile = fn('releaseProfile', withHeader({ iccid: wireIccid }), answered({}));

/** `notificationPointId`: an integer, which some implementations send as a decimal string. */
const pointId = z.union([z.number().int().min(0).max(65_535), z.string().regex(/^\d{1,5}$/).transform(Number)]);

/** SGP.22 §5.3.5: the SM-DP+ reports a step of the profile's download, installation or later life. Answered 204. */
export const handleDownloadProgressInfo = fn(
  'handleDownloadProgressInfo',
  withHeader({
    eid: maybe(wireEid),
    iccid: wireIccid,
    profileType: text(256),
    timestamp: z.string().max(64).refine((value) => Number.isFinite(Date.parse(value)), 'must be a W3C date-time such as 2026-01-01T10:00:00Z'),
    notificationPointId: pointId,
    notificationPointStatus: z.object({ status: text(64), statusCodeData: maybe(statusCodeData) }),
    resultData: maybe(z.string().max(8192)),
  }),
  z.undefined(),
  204,
);
export type DownloadProgressInfo = z.output<typeof handleDownloadProgressInfo.request>;

/**
 * Notification points (SGP.22 §5.3.5): 1 eligibility and retry limit check,
 * 2 confirmation failure, 3 BPP download, 4 BPP installation; 5 is taken as
 * the profile's deletion from the device (the eUICC's delete notification
 * forwarded). Others are recorded and change nothing.
 */
export const notificationPoints = { eligibility: 1, confirmation: 2, bppDownload: 3, bppInstallation: 4, deletion: 5 } as const;

/** The answer an ES2+ server gives when it refuses a call: HTTP 200, a header with Failed and why (SGP.22 §6.5.1.4). */
export function failedAnswer(data: StatusCodeData, status: 'Failed' | 'Expired' = 'Failed') {
  return { header: { functionExecutionStatus: { status, statusCodeData: data } } };
}

export function successHeader(status: 'Executed-Success' | 'Executed-WithWarning' = 'Executed-Success') {
  return { functionExecutionStatus: { status } };
}

/** Subject codes this code base uses (SGP.22 §5.1.6.4 and the ES2+ error tables). */
export const subjectCodes = {
  function: '8.1',
  eid: '8.1.1',
  profile: '8.2',
  iccid: '8.2.1',
  profileType: '8.2.5',
  matchingId: '8.2.6',
  functionRequester: '1.2',
} as const;

/** Reason codes this code base uses (SGP.22 §5.1.6.4). */
export const reasonCodes = {
  unknownAccess: '1.1',
  notAllowed: '1.2',
  invalid: '2.1',
  mandatoryMissing: '2.2',
  alreadyInUse: '3.3',
  unavailable: '3.7',
  refused: '3.8',
  unknown: '3.9',
  executionError: '4.2',
  transactionTimeout: '5.1',
} as const;

/**
 * Whether a refusal will change by asking again later (contract §8: a
 * transient refusal is retried within the 15-minute window; a permanent one
 * fails the order and refunds it). By reason code, the table in
 * docs/es2plus.md:
 * - transient: 3.7 unavailable (no profile of the type free now, an SM-DS
 *   unreachable), 4.x execution errors, 5.x transaction errors / timeouts,
 *   1.1 authentication (our certificate or requester id being fixed), and
 *   the status `Expired` whatever the codes;
 * - permanent: every other 1.x, 2.x (our request is wrong), 3.x other than
 *   3.7 (unknown, refused, already in use, invalid association), 6.x
 *   (verification failed, expired, retries exceeded);
 * - a refusal with no statusCodeData, or a reason code outside these
 *   classes: transient (it cannot be told apart from an SM-DP+ fault).
 */
export function refusalKind(status: string, data: StatusCodeData | undefined): 'transient' | 'permanent' {
  if (status === 'Expired' || !data) return 'transient';
  const reason = data.reasonCode.trim();
  if (reason === reasonCodes.unavailable || reason === reasonCodes.unknownAccess) return 'transient';
  const major = reason.split('.')[0];
  if (major === '4' || major === '5') return 'transient';
  if (major === '1' || major === '2' || major === '3' || major === '6') return 'permanent';
  return 'transient';
}
