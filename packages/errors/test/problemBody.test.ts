// Protects the one problem+json body every HTTP surface answers with: the §3 fields, and no internals for a bug.
import { describe, expect, it } from 'vitest';
import { AppError, errorCatalog, errorCodes, internalDetail, problemBody } from '../src/index.js';

describe('problemBody', () => {
  it('when an error has field errors and a request id, then the body carries every §3 field', () => {
    const error = new AppError('VALIDATION_ERROR', 'phoneNumber: must be E.164', { errors: [{ path: 'phoneNumber', message: 'must be E.164' }] });
    expect(problemBody(error, 'req_1')).toEqual({
      type: '/problems/validation-error',
      title: 'Validation failed',
      status: 400,
      code: 'VALIDATION_ERROR',
      detail: 'phoneNumber: must be E.164',
      requestId: 'req_1',
      errors: [{ path: 'phoneNumber', message: 'must be E.164' }],
    });
  });

  it('when no request id is given and no field failed, then neither key is present', () => {
    const body = problemBody(new AppError('UNAVAILABLE', 'a dependency is unreachable'));
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'status', 'title', 'type']);
  });

  it('when the error is INTERNAL, then its message never reaches the body', () => {
    const body = problemBody(new AppError('INTERNAL', 'relation "orders.orders" does not exist at /srv/app/store.ts:12'), 'req_2');
    expect(body.detail).toBe(internalDetail);
    expect(JSON.stringify(body)).not.toContain('relation');
  });

  it('when any code is used, then status and title come from the catalog', () => {
    for (const code of errorCodes) {
      const body = problemBody(new AppError(code, 'x'));
      expect(body).toMatchObject({ status: errorCatalog[code].status, title: errorCatalog[code].title, code });
      expect(body.type).toMatch(/^\/problems\/[a-z-]+$/);
    }
  });
});
