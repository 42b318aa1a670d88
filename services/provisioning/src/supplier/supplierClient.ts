import { z } from 'zod';
import { metrics } from '@esim/telemetry';

/** The eSIM the supplier issued for a reference. */
export interface SupplierEsim {
  reference: string;
  iccid: string;
  smdpAddress: string;
  matchingId: string;
  activationCode: string;
}

export type TransientCause = 'unavailable' | 'throttled' | 'timeout' | 'network_error' | 'bad_response';

/** One call's outcome, already sorted into what the use case must do with it. */
export type SupplierResult =
  | { kind: 'issued'; statusCode: number; esim: SupplierEsim }
  | { kind: 'rejected'; statusCode: number; detail: string }
  | { kind: 'transient'; cause: TransientCause; statusCode: number | null; detail: string };

/** The bundle's size, sent so the supplier (the simulator has no catalog) knows it; absent for older events. */
export interface BundleSize {
  dataMb?: number;
  validityDays?: number;
}

export type RevokeResult =
  | { kind: 'revoked'; statusCode: number }
  | { kind: 'refused'; statusCode: number; detail: string }
  | { kind: 'transient'; cause: TransientCause; statusCode: number | null; detail: string };

export interface SupplierClient {
  /** A new eSIM, its first bundle named by `reference`. */
  requestEsim(request: { sku: string; reference: string } & BundleSize): Promise<SupplierResult>;
  /** A bundle added to the existing eSIM `iccid` (a top-up); the answer is that eSIM's profile. */
  addBundle(request: { iccid: string; sku: string; reference: string } & BundleSize): Promise<SupplierResult>;
  /**
   * Revokes the bundle `reference` (a first bundle: the whole eSIM). Idempotent at the supplier.
   * `timeoutMs` shortens the client's own timeout (the caller's deadline leaves less).
   */
  revokeBundle(request: { reference: string; timeoutMs?: number }): Promise<RevokeResult>;
}

const meter = metrics.getMeter('provisioning');
const calls = meter.createCounter('provisioning_supplier_calls_total', { description: 'Supplier calls, by outcome' });
const duration = meter.createHistogram('provisioning_supplier_call_duration_ms', { description: 'Supplier call duration, by outcome', unit: 'ms' });

const maxResponseBytes = 64 * 1024;
const maxDetailChars = 500;

const text = z.string().min(1).max(256);
const esimAnswer = z.object({
  reference: text,
  iccid: z.string().regex(/^\d{18,22}$/),
  smdpAddress: text,
  matchingId: text,
  activationCode: z.string().startsWith('LPA:1$').max(512),
});
const errorAnswer = z.object({ error: z.string().optional(), message: z.string().optional() }).loose();

/** 4xx answers that mean "try later", not "never". */
const retryableClientStatuses = new Set([408, 425, 429]);

/** True when an eSIM-issuing call answered with this status is refused for good (a 4xx that is not "try later"). */
export function isRejectionStatus(status: number): boolean {
  return status >= 400 && status < 500 && !retryableClientStatuses.has(status);
}

/**
 * The upstream supplier's HTTP API: `POST {SUPPLIER_URL}/v1/esims` with the
 * SKU and our idempotency reference, under a deadline. It never throws: every
 * outcome (an eSIM, a rejection, a transient failure) is a value.
 */
export function createSupplierClient(options: { baseUrl: string; timeoutMs: number }): SupplierClient {
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const url = (path: string) => new URL(path, base);

  type Answer = { kind: 'answer'; status: number; body: string } | Extract<SupplierResult, { kind: 'transient' }>;

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

  /** An eSIM-issuing call (a new eSIM, or a bundle on one): sorted into issued, rejected or transient. */
  async function issue(endpoint: URL, request: { reference: string; iccid?: string }, payload: unknown): Promise<SupplierResult> {
    const answer = await post(endpoint, payload);
    if (answer.kind === 'transient') return answer;
    const { status, body } = answer;
    if (status >= 200 && status < 300) {
      const esim = esimAnswer.safeParse(parseJson(body));
      if (!esim.success || esim.data.reference !== request.reference || (request.iccid !== undefined && esim.data.iccid !== request.iccid)) {
        return { kind: 'transient', cause: 'bad_response', statusCode: status, detail: `HTTP ${status} with an unusable eSIM body` };
      }
      return { kind: 'issued', statusCode: status, esim: esim.data };
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
    requestEsim: (request) => measured(() => issue(url('v1/esims'), request, request)),
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
