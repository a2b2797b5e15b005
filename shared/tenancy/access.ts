import { DomainError, NotFoundError } from '../kernel/domain-error.ts';

/** A project role: what a project key or a portal session may do in its one project. */
export type Role = 'viewer' | 'developer' | 'admin';
export const ROLES: readonly Role[] = ['viewer', 'developer', 'admin'];

/**
 * Who is calling the management API: the operator (the deployment's admin key), a project key (`sbm_…`), or a
 * portal session (the console opened by a one-time link). The last two act on one project with one role.
 */
export type Actor =
  | { kind: 'admin' }
  | { kind: 'key'; id: string; projectId: string; role: Role }
  | { kind: 'portal'; id: string; projectId: string; role: Role };

export type ProjectActor = Exclude<Actor, { kind: 'admin' }>;

/**
 * What a management route asks of its caller: the lowest project role that may call it, or `operator` (the admin
 * key alone: creating projects, granting credits). `operatorFields` are body fields only the operator may send
 * (credits and limits), whatever the route's role.
 */
export interface Access {
  role: Role | 'operator';
  operatorFields?: readonly string[];
}

/** Who may call each route of a function: a rule per route name; `anyone` for the one route that opens a session. */
export type RouteAccess = Readonly<Record<string, Access | 'anyone'>>;

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2 };

/** The caller is known but may not do this. */
export class ForbiddenError extends DomainError {
  readonly code = 'FORBIDDEN';

  constructor(message: string) {
    super(message);
    this.name = 'ForbiddenError';
  }
}

/**
 * Whether `actor` may call a route of `access` on `projectId` (undefined for `/projects` itself), decided before the
 * body is read. Another project's path reads as no project at all (404, the same answer as an unknown id), so a key
 * learns nothing about projects not its own; a role too low is 403.
 */
export function authorize(actor: Actor, access: Access, projectId: string | undefined): void {
  if (actor.kind === 'admin') return;
  if (projectId !== undefined && projectId !== actor.projectId) {
    throw new NotFoundError('project', `No project ${projectId}.`);
  }
  if (access.role === 'operator') {
    throw new ForbiddenError('Only the operator (the admin key) may do this.');
  }
  if (RANK[actor.role] < RANK[access.role]) {
    throw new ForbiddenError(`The ${actor.role} role may not do this; it takes the ${access.role} role.`);
  }
}

/** Once the body is read: a project role that sends an operator-only field (credits, limits) is refused (403). */
export function authorizeBody(actor: Actor, access: Access, body: unknown): void {
  if (actor.kind === 'admin') return;
  const sent = operatorFieldsIn(access, body);
  if (sent.length) {
    throw new ForbiddenError(`Only the operator may set ${sent.join(', ')}.`);
  }
}

function operatorFieldsIn(access: Access, body: unknown): string[] {
  if (!access.operatorFields || typeof body !== 'object' || body === null) return [];
  return access.operatorFields.filter((field) => (body as Record<string, unknown>)[field] !== undefined);
}
