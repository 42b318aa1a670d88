import type { OperatorRole } from '@esim/vocabulary';

/** A person with an operator account (§10); the token's secret is never held, only its hash in the credential. */
export interface Operator {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** What the gateway verifies an operator token with: never the secret. */
export interface OperatorCredential {
  operatorId: string;
  email: string;
  role: OperatorRole;
  /** Hex SHA-256 of the token's secret part (checked with `secretMatches`). */
  secretHash: string;
  revoked: boolean;
}
