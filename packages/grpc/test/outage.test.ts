// Protects the line between a service's outage and its bug: its database unreachable, out of connections or restarting answers UNAVAILABLE (the client retries, 503 at the edge), anything else unexpected stays INTERNAL with its message hidden.
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { AppError } from '@esim/errors';
import { isOutage, toStatus } from '../src/errors.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('toStatus for infrastructure failures', () => {
  it('when pg-pool times out connecting, Postgres refuses, has too many clients or shuts down, then UNAVAILABLE', () => {
    for (const error of [
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated unexpectedly'),
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      withCode('sorry, too many clients already', '53300'),
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('connection failure', '08006'),
      new Error('Client has encountered a connection error and is not queryable'),
    ]) {
      expect(isOutage(error), error.message).toBe(true);
      const answer = toStatus(error);
      expect(answer.code, error.message).toBe(status.UNAVAILABLE);
      expect(answer.metadata?.get('x-error-code')).toEqual(['UNAVAILABLE']);
      expect(answer.details).not.toContain('5432');
    }
  });

  it('when the error is a bug (a constraint, a TypeError) or a domain error, then it is not an outage', () => {
    expect(toStatus(withCode('duplicate key value violates unique constraint', '23505')).code).toBe(status.INTERNAL);
    expect(toStatus(new TypeError('x is undefined')).code).toBe(status.INTERNAL);
    expect(toStatus(new AppError('NOT_FOUND', 'no such order')).code).toBe(status.NOT_FOUND);
  });
});
