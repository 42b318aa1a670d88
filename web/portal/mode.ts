/** The portal's rules of test mode (§14): which reads take the mode, which key a copied call names. */
import type { Mode } from '../shared/mode.js';

/** Where the portal's copied calls expect the key: a test key in test mode, so a pasted live call never spends money. */
export function keyVariableOf(mode: Mode): string {
  return mode === 'test' ? 'ESIM_TEST_KEY' : 'ESIM_API_KEY';
}

/**
 * The portal's calls that take `livemode=false` (contract §4 and §14): the
 * read views, the endpoints and the test event, and the test-only twins
 * (test wallet credit, test helpers), which a pending account reaches only
 * by asking for test mode. Not the account itself, nor the test keys.
 */
export const modePaths = [
  '/partner/me/wallet',
  '/partner/me/orders',
  '/partner/me/catalog',
  '/partner/me/esims',
  '/partner/me/webhook',
  '/partner/me/webhook-deliveries',
  '/partner/me/webhook-endpoints',
  '/partner/me/test',
];
