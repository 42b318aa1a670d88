/**
 * One fact of an audit entry. The log holds facts an operator reads (a tier,
 * a key id, a plan's changed fields), so the values are closed to what JSON
 * and the AuditDetail message can both carry without a string in between.
 */
export type AuditDetailValue = string | number | boolean | null | string[];
export type AuditDetails = Record<string, AuditDetailValue>;

export interface AuditEntry {
  id: string;
  action: string;
  target: string;
  operator: string;
  requestId: string;
  details: AuditDetails;
  /** The e-mail of the operator account `operator` names (opr_…); null for admin-token, partners and older entries. */
  operatorEmail?: string | null;
  createdAt: Date;
}

/**
 * Narrows details as stored. Other services' entries arrive as events whose
 * details are any JSON object; a nested value (an object, a list of
 * non-strings) is flattened to dotted names, the path style of our
 * validation errors (`countries.0`), so no fact is lost and none needs JSON
 * inside a string.
 */
export function auditDetailsOf(raw: Record<string, unknown>): AuditDetails {
  const details: AuditDetails = {};
  const add = (name: string, value: unknown): void => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      details[name] = value;
    } else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      details[name] = value;
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) add(`${name}.${key}`, inner);
    }
  };
  for (const [name, value] of Object.entries(raw)) add(name, value);
  return details;
}
