/**
 * The portal's mode (live or test, §14) for the components deep in a page
 * that change with it: which key a copied call names, which buttons exist.
 * The App provides it; reads already carry the mode through their client.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Mode } from '../shared/mode.js';

export const PortalMode = createContext<Mode>('live');

export function useMode(): Mode {
  return useContext(PortalMode);
}
