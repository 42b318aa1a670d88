import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** The operator roles of §10, as the gateway's one table applies them. */
export type Role = 'viewer' | 'support' | 'finance' | 'admin';

/** True when `role` may make a call that needs `needed` (support and finance are not ordered). */
export function roleAllows(role: Role, needed: Role): boolean {
  return role === 'admin' || needed === 'viewer' || role === needed;
}

/** The signed-in operator's role; pages hide what it cannot do (the API refuses it anyway, 403 OPERATOR_ROLE_REQUIRED). */
export const RoleContext = createContext<Role>('viewer');

export function useCan(): (needed: Role) => boolean {
  const role = useContext(RoleContext);
  return (needed) => roleAllows(role, needed);
}
