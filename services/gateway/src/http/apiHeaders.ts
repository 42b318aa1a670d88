/**
 * What every API answer carries (§3): an order view holds a customer's
 * e-mail and phone and a wallet is financial data, so no cache (browser,
 * proxy) may keep one, and no browser may guess a JSON answer into HTML.
 * The portals' hashed assets are the one exception (staticApps.ts).
 */
export const apiHeaders = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;
