import type { IncomingMessage } from 'node:http';

const maxBodyBytes = 16 * 1024;

/** One answer of either API: status, JSON body, and the outcome label its metric counts. */
export interface Answer {
  status: number;
  body: unknown;
  outcome: string;
}

export const notFound: Answer = { status: 404, body: { error: 'not_found' }, outcome: 'not_found' };

export const badRequest = (message: string): Answer => ({ status: 400, body: { error: 'bad_request', message }, outcome: 'bad_request' });

/** A request the handler stops reading: its answer is already decided. */
export class RequestBodyError extends Error {
  constructor(readonly answer: Answer) {
    super(answer.outcome);
  }
}

/** Reads at most 16 KiB and parses it as JSON. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const tooLarge = new RequestBodyError({ status: 413, body: { error: 'payload_too_large', message: 'The body is over 16 KiB.' }, outcome: 'too_large' });
  if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) throw tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) throw tooLarge;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RequestBodyError(badRequest('The body is not valid JSON.'));
  }
}

export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
