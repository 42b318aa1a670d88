import { createHash } from 'node:crypto';
import type { OrderRequest } from './order.js';

/**
 * What makes two requests "the same body" for a reused clientRequestId: the
 * plan and the customer, compared exactly (as the IETF Idempotency-Key draft
 * compares payloads). Canonical JSON (keys sorted, no whitespace), hashed, so
 * the row keeps no second copy of the customer's details.
 */
export function fingerprintOf(request: Pick<OrderRequest, 'planId' | 'email' | 'phoneNumber' | 'iccid' | 'quantity'>): string {
  // The ICCID joins only when set, and the quantity only above one (one is the default, sent or not), so a
  // single order's fingerprint is what it was before top-ups and groups existed.
  const quantity = request.quantity ?? 1;
  const canonical = JSON.stringify({
    email: request.email,
    ...(request.iccid === undefined ? {} : { iccid: request.iccid }),
    phoneNumber: request.phoneNumber,
    planId: request.planId,
    ...(quantity > 1 ? { quantity } : {}),
  });
  return createHash('sha256').update(canonical).digest('hex');
}
