// Protects the one route → role table of §10: a route without a row needs admin (closed by default), HEAD follows its GET, and the role rules (support and finance unordered, admin everything).
import { describe, expect, it } from 'vitest';
import { operatorRoles, roleAllows } from '@esim/vocabulary';
import { roleNeeded, routeRoles } from '../src/auth/operatorRoles.js';

describe('the operator role table', () => {
  it('when a route has no row, then it needs admin', () => {
    expect(roleNeeded('POST', '/admin/v1/something-new')).toBe('admin');
    expect(roleNeeded('GET', '/admin/v1/something-new')).toBe('admin');
  });

  it('when a HEAD request comes, then its GET row applies', () => {
    expect(roleNeeded('HEAD', '/admin/v1/partners')).toBe('viewer');
  });

  it('when the rows are read, then every GET is viewer and every write needs more', () => {
    for (const [route, role] of Object.entries(routeRoles)) {
      if (route.startsWith('GET ')) expect(role, route).toBe('viewer');
      else expect(role, route).not.toBe('viewer');
    }
  });

  it('when roles are compared, then admin does everything, viewer only reads, and support and finance do not cover each other', () => {
    const table = operatorRoles.map((role) => operatorRoles.map((needed) => roleAllows(role, needed)));
    expect(table).toEqual([
      // needed: viewer, support, finance, admin
      [true, false, false, false], // viewer
      [true, true, false, false], // support
      [true, false, true, false], // finance
      [true, true, true, true], // admin
    ]);
  });
});
