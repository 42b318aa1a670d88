import type { ServiceHandlers } from '@esim/grpc';
import { provisioningV1 } from '@esim/proto';
import type { Logger } from '@esim/telemetry';
import { revokeBundle } from '../domain/revokeBundle.js';
import type { SupplierClient } from '../supplier/supplierClient.js';

type ProvisioningMethods = (typeof provisioningV1.ProvisioningService)['method'];

/** Transport only: each RPC converts its message, calls one use case, converts the answer. */
export function provisioningHandlers(deps: { supplier: SupplierClient; logger: Logger }): ServiceHandlers<ProvisioningMethods> {
  return {
    async revokeBundle(request) {
      const outcome = await revokeBundle(deps, request);
      return outcome.revoked
        ? { outcome: provisioningV1.RevokeOutcome.REVOKED, detail: '' }
        : { outcome: provisioningV1.RevokeOutcome.NOT_REVOKABLE, detail: outcome.detail };
    },
  };
}
