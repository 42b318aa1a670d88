import { generateOperatorToken, hashSecret } from '@esim/api-keys';
import { AppError, validationError, type FieldError } from '@esim/errors';
import { newId } from '@esim/ids';
import { pageWindow, withTransaction } from '@esim/postgres';
import { isOneOf, operatorRoles, type OperatorRole } from '@esim/vocabulary';
import { findOperator, findOperatorCredential, insertOperator, listOperators as selectOperators, setOperator, touchOperator as touchOperatorRow } from '../store/operatorStore.js';
import type { PartnersDeps } from './deps.js';
import type { Operator, OperatorCredential } from './operator.js';
import type { Actor } from './partner.js';
import { audit, requestMail } from './sideEffects.js';

const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function parseRole(value: string): OperatorRole {
  if (isOneOf(operatorRoles, value)) return value;
  throw validationError([{ path: 'role', message: `must be one of ${operatorRoles.join(', ')}` }]);
}

/**
 * A new operator account (§10). Its token `op_<prefix>_<secret>` is e-mailed
 * to the operator once and exists nowhere else: only the secret's hash is
 * stored. Audited with the actor that created it.
 */
export function createOperator(deps: PartnersDeps, request: { email: string; name: string; role: string }, actor: Actor): Promise<Operator> {
  const errors: FieldError[] = [];
  const email = request.email.trim().toLowerCase();
  if (!emailShape.test(email) || email.length > 254) errors.push({ path: 'email', message: 'must be a valid e-mail address' });
  if (request.name.trim().length < 1 || request.name.length > 200) errors.push({ path: 'name', message: 'must be 1–200 characters' });
  if (!isOneOf(operatorRoles, request.role)) errors.push({ path: 'role', message: `must be one of ${operatorRoles.join(', ')}` });
  if (errors.length > 0) throw validationError(errors);
  return withTransaction(deps.pool, async (db) => {
    const { token, prefix, secret } = generateOperatorToken();
    const operator = await insertOperator(db, { id: newId('opr'), email, name: request.name.trim(), role: parseRole(request.role), prefix, secretHash: hashSecret(secret) });
    await requestMail(db, deps.dataKey, {
      to: email,
      template: 'operator_invited',
      values: { name: operator.name, role: operator.role },
      secrets: { operatorToken: token },
    });
    await audit(db, actor, 'operator.created', operator.id, { email, role: operator.role });
    return operator;
  });
}

export function listOperators(deps: PartnersDeps, page: { page: number; limit: number } | undefined): Promise<{ operators: Operator[]; total: number }> {
  return selectOperators(deps.pool, pageWindow(page, 20));
}

/** Revoking twice is harmless; the gateway re-reads credentials within a second, so the token stops within 2 s on every replica. */
export function revokeOperator(deps: PartnersDeps, id: string, actor: Actor): Promise<Operator> {
  return withTransaction(deps.pool, async (db) => {
    const existing = await findOperator(db, id, { forUpdate: true });
    if (!existing) throw operatorNotFound(id);
    if (existing.revokedAt) return existing;
    const revoked = await setOperator(db, id, { revoke: true });
    await audit(db, actor, 'operator.revoked', id, { email: revoked.email });
    return revoked;
  });
}

export function updateOperatorRole(deps: PartnersDeps, id: string, role: string, actor: Actor): Promise<Operator> {
  const newRole = parseRole(role);
  return withTransaction(deps.pool, async (db) => {
    const existing = await findOperator(db, id, { forUpdate: true });
    if (!existing) throw operatorNotFound(id);
    if (existing.role === newRole) return existing;
    const updated = await setOperator(db, id, { role: newRole });
    await audit(db, actor, 'operator.role_changed', id, { email: updated.email, oldRole: existing.role, newRole });
    return updated;
  });
}

export async function lookupOperatorToken(deps: PartnersDeps, prefix: string): Promise<OperatorCredential> {
  const credential = await findOperatorCredential(deps.pool, prefix);
  if (!credential) throw new AppError('NOT_FOUND', 'No such operator token.');
  return credential;
}

export function touchOperator(deps: PartnersDeps, id: string): Promise<void> {
  return touchOperatorRow(deps.pool, id);
}

function operatorNotFound(id: string): AppError {
  return new AppError('NOT_FOUND', `No operator ${id}.`);
}
