import { HttpError } from '../../http/errors.ts';
import type { HttpEvent } from '../../http/types.ts';
import type { Actor } from '../access.ts';

/** The portal session cookie's name. */
export const PORTAL_COOKIE = 'sb_portal';

/** Who a management request comes from, once recognised; a portal session adds what its console needs. */
export interface Caller {
  actor: Actor;
  session?: { expiresAt: string; csrfToken: string };
}

/** The caller of a request the management function recognised (routes that need none never call this). */
export function callerOf(event: HttpEvent): Caller {
  const caller = event.auth as Caller | undefined;
  if (!caller) throw new HttpError(401, 'UNAUTHORIZED', 'This route needs a caller.');
  return caller;
}

/** One cookie's value from a `Cookie` header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The one project a project key or portal session acts on; undefined for the operator. */
export function projectScopeOf(event: HttpEvent): string | undefined {
  const actor = (event.auth as Caller | undefined)?.actor;
  return actor && actor.kind !== 'admin' ? actor.projectId : undefined;
}
