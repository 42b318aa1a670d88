import { createClient, type TlsFiles } from '@esim/grpc';
import { provisioningV1 } from '@esim/proto';

export type RevokeOutcome = { revoked: true } | { revoked: false; detail: string };

export interface Provisioning {
  /**
   * Revokes the bundle an order bought (for a first order, the whole eSIM).
   * Idempotent. `revoked: false` when the supplier refuses (used, installed);
   * UNAVAILABLE when the supplier or provisioning could not be reached.
   */
  revokeBundle(request: { reference: string; iccid: string; firstBundle: boolean }): Promise<RevokeOutcome>;
  close(): void;
}

/** Bounded: a partner's cancel waits at most this long on the supplier before hearing 503. */
const revokeDeadlineMs = 10_000;

export function provisioningClient(address: string, tls?: TlsFiles): Provisioning {
  const client = createClient(provisioningV1.ProvisioningService, address, { tls });
  return {
    async revokeBundle(request) {
      const answer = await client.revokeBundle(request, { deadlineMs: revokeDeadlineMs });
      if (answer.outcome === provisioningV1.RevokeOutcome.REVOKED) return { revoked: true };
      if (answer.outcome === provisioningV1.RevokeOutcome.NOT_REVOKABLE) return { revoked: false, detail: answer.detail };
      throw new Error(`RevokeBundle answered outcome ${answer.outcome}`);
    },
    close: () => client.close(),
  };
}
