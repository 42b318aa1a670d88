// Protects the one paging rule every service's list RPC shares: defaults for proto3 zeros, exact offsets, and a named 400 for anything out of range.
import { AppError } from '@esim/errors';
import { describe, expect, it } from 'vitest';
import { pageWindow } from '../src/paging.js';

describe('pageWindow', () => {
  it('when no page is sent, then the first page at the default limit', () => {
    expect(pageWindow(undefined, 20)).toEqual({ page: 1, limit: 20, offset: 0 });
  });

  it('when proto3 zeros arrive for page and limit, then they mean the first page and the default limit', () => {
    expect(pageWindow({ page: 0, limit: 0 }, 50)).toEqual({ page: 1, limit: 50, offset: 0 });
  });

  it('when page 3 of 20 is asked for, then rows 40 to 59', () => {
    expect(pageWindow({ page: 3, limit: 20 }, 50)).toEqual({ page: 3, limit: 20, offset: 40 });
  });

  it('when the largest int32 page is asked for, then the offset is exact', () => {
    expect(pageWindow({ page: 2_147_483_647, limit: 100 }, 20)).toEqual({ page: 2_147_483_647, limit: 100, offset: 214_748_364_600 });
  });

  it.each([
    [{ page: -1, limit: 20 }, ['page']],
    [{ page: 1, limit: 101 }, ['limit']],
    [{ page: 1.5, limit: -3 }, ['page', 'limit']],
  ])('when %o is asked for, then VALIDATION_ERROR names %o', (request, paths) => {
    let caught: unknown;
    try {
      pageWindow(request, 20);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('VALIDATION_ERROR');
    expect((caught as AppError).errors?.map((e) => e.path)).toEqual(paths);
  });
});
