import { z } from 'zod';

/**
 * `?livemode=` of the operators' lists (contract §14): live data unless the
 * operator asks for test data, so no test order or amount shows in a live
 * view by omission. Only the words true and false: anything else is a 400
 * naming the parameter, as every query rule (§3).
 */
export const livemodeQuery = {
  livemode: z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default('true')
    .transform((value) => value === 'true')
    .describe('true (default): live data only; false: test-mode data only (test accounts, §14)'),
};
