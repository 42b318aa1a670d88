import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { z } from 'zod';
import {
  cancelOrder,
  confirmOrder,
  downloadOrder,
  failedAnswer,
  reasonCodes,
  releaseProfile,
  subjectCodes,
  successHeader,
  type Es2Function,
} from '@esim/es2plus';
import type { Logger } from '@esim/telemetry';
import type { Es2Outcome, SimulatedSmdp } from '../domain/simulatedSmdp.js';
import { readJson, RequestBodyError, type Answer } from './json.js';

/** ES2+ answers carry X-Admin-Protocol; the API adds it for every answer whose `es2` flag is set. */
export type Es2Answer = Answer & { es2: true };

const refusal = (status: number, subjectCode: string, reasonCode: string, message: string, outcome: string): Es2Answer => ({
  status,
  body: failedAnswer({ subjectCode, reasonCode, message }),
  outcome,
  es2: true,
});

/**
 * The simulator's SM-DP+ side (SGP.22 ES2+, JSON binding §6.5):
 * `POST /gsma/rsp2/es2plus/{downloadOrder,confirmOrder,cancelOrder,releaseProfile}`,
 * each request checked against @esim/es2plus's declaration of the function
 * (a missing or invalid field: `Failed` with 8.1 / 2.2 or 2.1, naming the
 * field), answered 200 with the response header and the function's output.
 * Over TLS, a caller without a client certificate under the simulator's CA
 * is refused (1.2 / 1.1). `failsAtRandom` answers 4.2 (execution error),
 * which the platform retries. Returns undefined for another path.
 */
export function es2Route(
  req: IncomingMessage,
  path: string,
  deps: { smdp: SimulatedSmdp; failsAtRandom: () => boolean; requireClientCert: boolean; logger: Logger },
): Promise<Es2Answer> | undefined {
  if (!path.startsWith('/gsma/rsp2/es2plus/')) return undefined;
  const { smdp } = deps;
  switch (path) {
    case downloadOrder.path:
      return handle(req, deps, downloadOrder, (callId, body) => smdp.downloadOrder(callId, body));
    case confirmOrder.path:
      return handle(req, deps, confirmOrder, (callId, body) => smdp.confirmOrder(callId, body));
    case cancelOrder.path:
      return handle(req, deps, cancelOrder, (callId, body) => smdp.cancelOrder(callId, body));
    case releaseProfile.path:
      return handle(req, deps, releaseProfile, (callId, body) => smdp.releaseProfile(callId, body));
    default:
      req.resume();
      return Promise.resolve(refusal(404, subjectCodes.function, reasonCodes.unknown, 'Unknown ES2+ function.', 'es2_unknown_function'));
  }
}

async function handle<In extends z.ZodType, Out extends z.ZodType>(
  req: IncomingMessage,
  deps: { failsAtRandom: () => boolean; requireClientCert: boolean; logger: Logger },
  fn: Es2Function<In, Out>,
  act: (callId: string, body: z.output<In> & Record<string, never>) => Es2Outcome<object>,
): Promise<Es2Answer> {
  if (req.method !== 'POST') {
    req.resume();
    return refusal(405, subjectCodes.function, reasonCodes.notAllowed, 'Use POST.', 'es2_method');
  }
  if (deps.requireClientCert && !(req.socket as TLSSocket).authorized) {
    req.resume();
    return refusal(403, subjectCodes.functionRequester, reasonCodes.unknownAccess, 'A client certificate under the SM-DP+ CA is required.', 'es2_unauthenticated');
  }
  let json: unknown;
  try {
    json = await readJson(req);
  } catch (error) {
    if (error instanceof RequestBodyError) return refusal(error.answer.status, subjectCodes.function, reasonCodes.invalid, 'The body is not JSON or is too large.', 'es2_bad_body');
    throw error;
  }
  const parsed = fn.request.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? '';
    const missing = issue?.code === 'invalid_type' && (issue as { input?: unknown }).input === undefined;
    return {
      status: 200,
      body: failedAnswer({
        subjectCode: subjectCodes.function,
        reasonCode: missing ? reasonCodes.mandatoryMissing : reasonCodes.invalid,
        subjectIdentifier: field,
        message: `${field || 'body'}: ${issue?.message ?? 'invalid'}`,
      }),
      outcome: 'es2_invalid',
      es2: true,
    };
  }
  if (deps.failsAtRandom()) return refusal(200, subjectCodes.function, reasonCodes.executionError, 'The SM-DP+ is temporarily unable to execute the function.', 'es2_unavailable');
  const body = parsed.data as { header: { functionCallIdentifier: string } };
  const outcome = act(body.header.functionCallIdentifier, parsed.data as never);
  if (!outcome.ok) return { status: 200, body: failedAnswer(outcome.data, outcome.status), outcome: `es2_${fn.name}_refused`, es2: true };
  deps.logger.info({ function: fn.name, callId: body.header.functionCallIdentifier }, 'ES2+ function executed');
  return { status: 200, body: { header: successHeader(), ...outcome.data }, outcome: `es2_${fn.name}`, es2: true };
}
