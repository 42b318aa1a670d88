import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, problemBody } from '@esim/errors';
import { newId } from '@esim/ids';
import { apiHeaders } from './apiHeaders.js';
import { sendProblem, toAppError } from './problems.js';

/**
 * fastify's `frameworkErrors`: what the router rejects before any route or
 * hook runs (a path with broken percent-encoding, a path parameter over
 * maxParamLength). Without it fastify answers its own JSON, with no
 * request id; here it is the same problem+json as every other error.
 */
export function answerFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  void sendProblem(request, reply, toAppError(error));
}

/**
 * fastify's `clientErrorHandler`: a request Node's HTTP parser itself cannot
 * read (a garbled request line, headers over the size limit, a request not
 * received in time) never becomes a request object, so the answer is
 * written on the socket by hand, still as problem+json with a request id.
 * The table of §3 has no 408 or 431, so each is a 400: the request, as
 * sent, is not one the API can take.
 */
export function answerClientError(this: { log: { debug: (o: object, m: string) => void } }, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: error }, 'unreadable request');
  const detail =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request headers are larger than the server accepts.'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'The request was not received completely in time.'
        : 'The request is not valid HTTP.';
  const requestId = newId('req');
  const body = JSON.stringify(problemBody(new AppError('VALIDATION_ERROR', detail), requestId));
  if (socket.writable) {
    const head = [
      `HTTP/1.1 400 ${STATUS_CODES[400]}`,
      'content-type: application/problem+json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${requestId}`,
      ...Object.entries(apiHeaders).map(([name, value]) => `${name}: ${value}`),
      'connection: close',
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
