import { z } from 'zod';
import { iccidPattern } from '@esim/ids';
import { metrics } from '@esim/telemetry';

/** A bundle the connectivity provider holds on an ICCID; profile fields only when the provider knows them (the simulator does). */
export interface ConnectivityBundle {
  reference: string;
  iccid: string;
  profile: { smdpAddress: string; matchingId: string; activationCode: string } | null;
}

export type TransientCause = 'unavailable' | 'throttled' | 'timeout' | 'network_error' | 'bad_response';

/** One call's outcome, already sorted into what the use case must do with it. */
export type BundleResult =
  | { kind: 'added'; statusCode: number; bundle: ConnectivityBundle }
  | { kind: 'rejected'; statusCode: number; detail: string }
  | { kind: 'transient'; cause: TransientCause; statusCode: number | null; detail: string };

/** The bundle's size, sent so the provider (the simulator has no catalog) knows it; absent for older events. */
export interface BundleSize {
  dataMb?: number;
  validityDays?: number;
}

export type RevokeResult =
  | { kind: 'revoked'; statusCode: number }
  | { kind: 'refused'; statusCode: number; detail: string }
  | { kind: 'transient'; cause: TransientCause; statusCode: number | null; detail: string };

export type SuspensionResult =
  | { kind: 'done'; statusCode: number; suspended: boolean }
  | { kind: 'refused'; statusCode: number; detail: string }
  | { kind: 'transient'; cause: TransientCause; statusCode: number | null; detail: string };

/**
 * The connectivity provider port (contract §8, §13): the network side of an
 * eSIM, which holds its data bundles. The SM-DP+ makes the profile; this
 * provider is told its ICCID with the first bundle. Every call carries the
 * order id as the idempotency reference. One adapter today (HTTP, below).
 */
export interface ConnectivityPort {
  /** The eSIM's first bundle, named by `reference`, on the ICCID the SM-DP+ issued. */
  addFirstBundle(request: { iccid: string; sku: string; reference: string } & BundleSize): Promise<BundleResult>;
  /** A bundle added to the existing eSIM `iccid` (a top-up). */
  addBundle(request: { iccid: string; sku: string; reference: string } & BundleSize): Promise<BundleResult>;
  /** Revokes the bundle `reference` (a first bundle: the whole subscription). Idempotent at the provider. */
  /** `timeoutMs` shortens the client's own timeout (the caller's deadline leaves less). */
  revokeBundle(request: { reference: string; timeoutMs?: number }): Promise<RevokeResult>;
  /** Stops (or restarts) data on the eSIM (contract §13 suspension). Idempotent at the provider. */
  setSuspended(request: { iccid: string; suspended: boolean }): Promise<SuspensionResult>;
}

const meter = metrics.getMeter('provisioning');
const calls = meter.createCounter('provisioning_supplier_calls_total', { description: 'Connectivity provider calls, by outcome' });
const duration = meter.createHistogram('provisioning_supplier_call_duration_ms', { description: 'Connectivity provider call duration, by outcome', unit: 'ms' });

const maxResponseBytes = 64 * 1024;
const maxDetailChars = 500;

const text = z.string().min(1).max(256);
const bundleAnswer = z.object({
  reference: text,
  iccid: z.string().regex(iccidPattern),
  smdpAddress: text.optional(),
  matchingId: text.optional(),
  activationCode: z.string().startsWith('LPA:1$').max(512).optional(),
});
const suspensionAnswer = z.object({ iccid: z.string(), suspended: z.boolean() });
const errorAnswer = z.object({ error: z.string().optional(), message: z.string().optional() }).loose();

/** 4xx answers that mean "try later", not "never". */
const retryableClientStatuses = new Set([408, 425, 429]);

/** True when an eSIM-issuing call answered with this status is refused for good (a 4xx that is not "try later"). */
export function isRejectionStatus(status: number): boolean {
  return status >= 400 && status < 500 && !retryableClientStatuses.has(status);
}

/**
 * The connectivity provider's HTTP API (CONNECTIVITY_URL): `POST /v1/esims`
 * with the ICCID, the SKU and our idempotency reference, top-ups, revocation
 * and suspension, each under a deadline. It never throws: every outcome is a
 * value.
 */
export function createConnectivityClient(options: { baseUrl: string; timeoutMs: number }): ConnectivityPort {
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const url = (path: string) => new URL(path, base);

  type Answer = { kind: 'answer'; status: number; body: string } | Extract<BundleResult, { kind: 'transient' }>;

  /** One POST under the deadline: the answer, or why there was none (always transient). */
  async function post(endpoint: URL, payload: unknown, timeoutMs = options.timeoutMs): Promise<Answer> {
    try {
      const signal = AbortSignal.timeout(Math.max(1, timeoutMs));
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: payload === undefined ? undefined : JSON.stringify(payload),
        signal,
      });
      return { kind: 'answer', status: response.status, body: await readBounded(response) };
    } catch (error) {
      if (error instanceof OversizedAnswerError) return { kind: 'transient', cause: 'bad_response', statusCode: null, detail: error.message };
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        return { kind: 'transient', cause: 'timeout', statusCode: null, detail: `no answer within ${timeoutMs} ms` };
      }
      return { kind: 'transient', cause: 'network_error', statusCode: null, detail: `network error: ${networkErrorCode(error)}` };
    }
  }

  /** A bundle-adding call (first or top-up): sorted into added, rejected or transient. */
  async function issue(endpoint: URL, request: { reference: string; iccid: string }, payload: unknown): Promise<BundleResult> {
    const answer = await post(endpoint, payload);
    if (answer.kind === 'transient') return answer;
    const { status, body } = answer;
    if (status >= 200 && status < 300) {
      const parsed = bundleAnswer.safeParse(parseJson(body));
      if (!parsed.success || parsed.data.reference !== request.reference || parsed.data.iccid !== request.iccid) {
        return { kind: 'transient', cause: 'bad_response', statusCode: status, detail: `HTTP ${status} with an unusable bundle body` };
      }
      const { smdpAddress, matchingId, activationCode } = parsed.data;
      const profile = smdpAddress && matchingId && activationCode ? { smdpAddress, matchingId, activationCode } : null;
      return { kind: 'added', statusCode: status, bundle: { reference: parsed.data.reference, iccid: parsed.data.iccid, profile } };
    }
    const detail = describeError(status, body);
    if (isRejectionStatus(status)) return { kind: 'rejected', statusCode: status, detail };
    return { kind: 'transient', cause: status === 429 ? 'throttled' : 'unavailable', statusCode: status, detail };
  }

  async function measured<T extends { kind: string; cause?: string }>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work();
    const outcome = result.kind === 'transient' ? (result.cause ?? 'transient') : result.kind;
    calls.add(1, { outcome });
    duration.record(performance.now() - started, { outcome });
    return result;
  }

  return {
    addFirstBundle: (request) => measured(() => issue(url('v1/esims'), request, request)),
    addBundle: ({ iccid, ...request }) =>
      measured(() => issue(url(`v1/esims/${encodeURIComponent(iccid)}/bundles`), { reference: request.reference, iccid }, request)),
    revokeBundle: (request) =>
      measured(async (): Promise<RevokeResult> => {
        const timeoutMs = Math.min(options.timeoutMs, request.timeoutMs ?? Infinity);
        const answer = await post(url(`v1/bundles/${encodeURIComponent(request.reference)}/revoke`), undefined, timeoutMs);
        if (answer.kind === 'transient') return answer;
        const { status, body } = answer;
        if (status >= 200 && status < 300) return { kind: 'revoked', statusCode: status };
        // 404 unknown reference, 409 bundle_used / esim_installed: the supplier's "no", with its word for why.
        if (status === 404 || status === 409) return { kind: 'refused', statusCode: status, detail: supplierWord(body) ?? (status === 404 ? 'not_found' : 'conflict') };
        return { kind: 'transient', cause: status === 429 ? 'throttled' : 'unavailable', statusCode: status, detail: describeError(status, body) };
      }),
    setSuspended: ({ iccid, suspended }) =>
      measured(async (): Promise<SuspensionResult> => {
        const answer = await post(url(`v1/esims/${encodeURIComponent(iccid)}/${suspended ? 'suspend' : 'resume'}`), undefined);
        if (answer.kind === 'transient') return answer;
        const { status, body } = answer;
        if (status >= 200 && status < 300) {
          const parsed = suspensionAnswer.safeParse(parseJson(body));
          if (!parsed.success || parsed.data.iccid !== iccid) return { kind: 'transient', cause: 'bad_response', statusCode: status, detail: `HTTP ${status} with an unusable body` };
          return { kind: 'done', statusCode: status, suspended: parsed.data.suspended };
        }
        if (status === 404 || status === 409) return { kind: 'refused', statusCode: status, detail: supplierWord(body) ?? (status === 404 ? 'not_found' : 'conflict') };
        return { kind: 'transient', cause: status === 429 ? 'throttled' : 'unavailable', statusCode: status, detail: describeError(status, body) };
      }),
  };
}

/** The supplier's `error` field (`bundle_used`), if it is a short machine word. */
function supplierWord(body: string): string | undefined {
  const answer = errorAnswer.safeParse(parseJson(body));
  const word = answer.success ? answer.data.error : undefined;
  return word && /^[a-z_]{1,40}$/.test(word) ? word : undefined;
}

class OversizedAnswerError extends Error {}

/** The body as text, refusing more than 64 KiB: a misbehaving upstream cannot fill our memory. */
async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxResponseBytes) throw new OversizedAnswerError('an answer over 64 KiB');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** `HTTP 422 sku_rejected: SKU … cannot be provisioned.`, for the operator's record and logs. */
function describeError(status: number, body: string): string {
  const answer = errorAnswer.safeParse(parseJson(body));
  const words = answer.success ? [answer.data.error, answer.data.message].filter(Boolean).join(': ') : '';
  return `HTTP ${status}${words ? ` ${words}` : ''}`.slice(0, maxDetailChars);
}

/** `ECONNREFUSED`, `ENOTFOUND`…: undici puts the system error in `cause`. */
function networkErrorCode(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  return error instanceof Error ? error.message.slice(0, 200) : 'unknown';
}
