// Protects the gateway's country check: the same list as the catalog's (@esim/vocabulary), any case in, upper case out.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countryCodes } from '@esim/vocabulary';
import { countryCode } from '../src/views/country.js';

describe('countryCode', () => {
  it('when any code of the shared list is sent in lower case, then it is accepted in upper case', () => {
    for (const code of countryCodes) expect(countryCode.parse(code.toLowerCase())).toBe(code);
  });

  for (const code of ['XK', 'XX', 'UK', 'EU', 'FRA', 'F', '12', '']) {
    it(`when "${code}" is sent, then it is rejected (the catalog rejects it too)`, () => {
      expect(countryCode.safeParse(code).success).toBe(false);
    });
  }

  it('when a list holds a bad code, then the issue path names its index, as `countries.1` in a problem body', () => {
    const result = z.object({ countries: z.array(countryCode) }).safeParse({ countries: ['FR', 'XK'] });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['countries.1']);
  });
});
