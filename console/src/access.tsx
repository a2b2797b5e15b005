import { type ComponentChildren, createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Role } from './api.ts';

/**
 * What the console's user may do: the operator everything; a portal session its role's actions and nothing more.
 * The API refuses the rest whatever the page shows; hiding them keeps a viewer from meeting buttons that only fail.
 */
const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, operator: 3 };

export const RoleContext = createContext<Role>('operator');

/** Whether the current user's role reaches `need`. */
export function useCan(need: Role): boolean {
  return RANK[useContext(RoleContext)] >= RANK[need];
}

/** Its children only for a role that reaches `need`. */
export function Can({ need, children }: { need: Role; children: ComponentChildren }) {
  return useCan(need) ? <>{children}</> : null;
}
