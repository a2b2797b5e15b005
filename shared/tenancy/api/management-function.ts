import { HttpError } from '../../http/errors.ts';
import { httpFunction } from '../../http/middleware.ts';
import type { HttpHandler, ScopedIdempotency } from '../../http/presets.ts';
import { type BoundRoute, createRouter, pathParamsOf } from '../../http/router.ts';
import type { Context, HttpEvent } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import { bearerToken, secretsEqual } from '../../kernel/tokens.ts';
import { authorize, type RouteAccess } from '../access.ts';
import type { ItemAlong } from '../keys.ts';
import type { ManageKeys } from '../manage-keys.ts';
import type { PortalSessions } from '../portal-sessions.ts';
import { type Caller, cookieValue, PORTAL_COOKIE } from './caller.ts';
import { guardRoutes, type RecordAudit } from './guard-routes.ts';

export interface ManagementFunctionOptions {
  logger: Logger;
  adminKey: string;
  prefix: string;
  routes: readonly BoundRoute[];
  access: RouteAccess;
  keys: Pick<ManageKeys, 'recognise'>;
  sessions: Pick<PortalSessions, 'recognise'>;
  recordAudit: RecordAudit;
  idempotency: ScopedIdempotency;
  readAhead?: ReadAhead;
}

/**
 * The project a request names, read along with the caller's project key (one round trip to the table for both), so
 * that the route's own read of it is served without another: `around` spans each request, `along` gives the read
 * (undefined when it would not be kept for the request).
 */
export interface ReadAhead {
  around<T>(serve: () => Promise<T>): Promise<T>;
  along(projectId: string): ItemAlong | undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const unauthorized = () =>
  new HttpError(
    401,
    'UNAUTHORIZED',
    'A valid key is required: "Authorization: Bearer <ADMIN_KEY or project key sbm_…>", or a portal session.',
  );

/**
 * The management API: the caller is recognised (the admin key, a project key, or a portal session cookie with its
 * CSRF token on a change), then the route is matched (404, 405) and its rule applied before its body is read:
 * another project's path is 404, a role too low 403. Each route then runs behind its own chain (idempotency scoped
 * to the caller's project, the body), and every successful change is written to its project's audit log.
 */
export function managementFunction(options: ManagementFunctionOptions): HttpHandler<HttpEvent> {
  const openPaths = new Set(
    options.routes
      .filter((r) => options.access[r.name ?? ''] === 'anyone')
      .map((r) => `${r.method} ${options.prefix}${r.path}`),
  );
  const dispatch = createRouter(
    options.prefix,
    guardRoutes(options.prefix, options.routes, options.access, options.recordAudit, options.logger),
    {
      idempotency: options.idempotency((event) => {
        const actor = (event.auth as Caller | undefined)?.actor;
        return !actor || actor.kind === 'admin' ? 'admin' : `project:${actor.projectId}`;
      }),
      authorize: (route, params, event) => {
        const rule = options.access[route.name ?? ''];
        // A route without a rule is refused to everyone: a new route is closed until someone says who may call it.
        if (rule === undefined) throw new HttpError(403, 'FORBIDDEN', 'No caller may use this route.');
        if (rule === 'anyone') return;
        const caller = event.auth as Caller | undefined;
        if (!caller) throw unauthorized();
        authorize(caller.actor, rule, params.projectId);
      },
    },
  );
  const paramsOf = pathParamsOf(options.prefix, options.routes);
  const along = (event: HttpEvent) => {
    const projectId = paramsOf(event.httpMethod, event.path ?? '/')?.projectId;
    return projectId === undefined ? undefined : options.readAhead?.along(projectId);
  };
  const serve = async (event: HttpEvent, context: Context) => {
    const open = openPaths.has(`${event.httpMethod.toUpperCase()} ${event.path}`);
    // Opening a link needs no caller: a stale cookie left from an ended session must not stand in its way.
    const caller = open
      ? await recogniseCaller(event, options, along).catch(() => undefined)
      : await recogniseCaller(event, options, along);
    if (caller) event.auth = caller;
    else if (!open) throw unauthorized();
    return dispatch(event, context);
  };
  const readAhead = options.readAhead;
  return httpFunction(options.logger).handler((event: HttpEvent, context: Context) =>
    readAhead ? readAhead.around(() => serve(event, context)) : serve(event, context),
  );
}

async function recogniseCaller(
  event: HttpEvent,
  options: ManagementFunctionOptions,
  along: (event: HttpEvent) => ItemAlong | undefined,
): Promise<Caller | undefined> {
  const header = event.normalizedHeaders.authorization;
  if (header !== undefined) {
    const presented = bearerToken(header);
    if (presented === undefined) throw unauthorized();
    if (secretsEqual(presented, options.adminKey)) return { actor: { kind: 'admin' } };
    // The path's project, read with the key: most routes read it first thing, and are then served from that read.
    const key = await options.keys.recognise(presented, along(event));
    if (!key) throw unauthorized();
    return { actor: { kind: 'key', id: key.keyId, projectId: key.projectId, role: key.role } };
  }
  const cookie = cookieValue(event.normalizedHeaders.cookie, PORTAL_COOKIE);
  if (cookie === undefined) return undefined;
  const found = await options.sessions.recognise(cookie);
  if (!found) throw unauthorized();
  const { session, csrfToken } = found;
  if (!SAFE_METHODS.has(event.httpMethod.toUpperCase())) {
    const sent = event.normalizedHeaders['x-csrf-token'];
    if (sent === undefined || !secretsEqual(sent, csrfToken)) {
      throw new HttpError(403, 'FORBIDDEN', 'A change from the console needs its CSRF token (x-csrf-token).');
    }
  }
  return {
    actor: { kind: 'portal', id: session.sessionId, projectId: session.projectId, role: session.role },
    session: { expiresAt: session.expiresAt, csrfToken },
  };
}
