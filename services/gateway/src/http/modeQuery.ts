import { z } from 'zod';

/**
 * `?livemode=false` picks test-mode data (§14); absent or `true`: live. One
 * spelling for the webhook routes' mode parameter (lists, the test event).
 */
export const livemodeParam = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .optional()
  .transform((value) => value !== 'false');
