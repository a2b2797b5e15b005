import type { RouteDocs } from '../../contract/api-docs.ts';
import { HttpError } from '../../http/errors.ts';
import { route, type RouteHandlers } from '../../http/router.ts';
import { json, noContent } from '../../http/types.ts';
import type { PortalSessions } from '../portal-sessions.ts';
import type { makeIssuePortalLink } from '../issue-portal-link.ts';
import { callerOf, PORTAL_COOKIE } from './caller.ts';
import { exchangeBody, portalLink, portalSessionBody, sessionInfo } from './schemas.ts';

/** Portal links (the console for one project, one role) and what the console calls to open one. */
export const portalRoutes = {
  createPortalSession: route({
    method: 'POST',
    path: '/projects/{projectId}/portal-sessions',
    body: portalSessionBody,
  }),
  endPortalSessions: route({ method: 'DELETE', path: '/projects/{projectId}/portal-sessions' }),
  exchangePortalCode: route({ method: 'POST', path: '/portal/exchange', body: exchangeBody }),
  whoAmI: route({ method: 'GET', path: '/session' }),
};

export function portalRouteDocs(): RouteDocs<typeof portalRoutes> {
  return {
    createPortalSession: {
      operationId: 'createPortalSession',
      summary: 'Make a portal link',
      description:
        "A one-time link that opens the console on this project alone, with the role given, for the customer's " +
        "own people: embed it in your app (the project's `portal.allowedOrigins` may frame it) or send it. Its " +
        'code opens one session within 5 minutes; the session lasts `ttlSeconds` (60 to 86,400, default 3,600).',
      tags: ['Access'],
      responses: { 201: { description: 'The link.', body: portalLink } },
    },
    endPortalSessions: {
      operationId: 'revokePortalSessions',
      summary: 'End every portal session',
      description: 'Every open session and unused link of the project stops working at once.',
      tags: ['Access'],
      responses: { 204: { description: 'Ended.' } },
    },
    exchangePortalCode: {
      operationId: 'verifyPortalCode',
      summary: 'Open a portal link',
      description:
        "The console trades the link's code for a session cookie (HttpOnly) and the session's CSRF token. A code " +
        'works once, within 5 minutes; any other code answers 401 `UNAUTHORIZED`.',
      tags: ['Console'],
      responses: { 200: { description: 'The session.', body: sessionInfo } },
    },
    whoAmI: {
      operationId: 'getCaller',
      summary: 'Who is calling',
      description: 'The caller: the operator, a project key or a portal session, its project and role.',
      tags: ['Console'],
      responses: { 200: { description: 'The caller.', body: sessionInfo } },
    },
  };
}

export interface PortalHandlerDeps {
  issueLink: ReturnType<typeof makeIssuePortalLink>;
  sessions: PortalSessions;
  /** Whether the service is reached over HTTPS (the cookie is then `Secure` and may be sent in a frame). */
  secure: boolean;
  /** The management API's path as browsers see it (`/admin/v1`, or `/prod/admin/v1` at API Gateway's address). */
  cookiePath: string;
}

export function portalHandlers(deps: PortalHandlerDeps): RouteHandlers<typeof portalRoutes> {
  return {
    createPortalSession: async ({ params, body }) =>
      json(201, await deps.issueLink(params.projectId, body), { 'cache-control': 'no-store' }),
    endPortalSessions: async ({ params }) => {
      await deps.sessions.endAll(params.projectId);
      return noContent();
    },
    exchangePortalCode: async ({ body }) => {
      const opened = await deps.sessions.exchange(body.code, body.projectId);
      if (!opened) throw new HttpError(401, 'UNAUTHORIZED', 'This link was used already, has expired or is not valid.');
      const maxAge = Math.max(0, Math.floor((Date.parse(opened.expiresAt) - Date.now()) / 1000));
      return json(
        200,
        {
          kind: 'portal',
          projectId: opened.projectId,
          role: opened.role,
          expiresAt: opened.expiresAt,
          csrfToken: opened.csrfToken,
        },
        { 'cache-control': 'no-store', 'set-cookie': sessionCookie(opened.cookie, maxAge, deps) },
      );
    },
    whoAmI: async ({ event }) => {
      const caller = callerOf(event);
      const { actor } = caller;
      if (actor.kind === 'admin')
        return json(200, { kind: 'admin', role: 'operator' }, { 'cache-control': 'no-store' });
      return json(
        200,
        { kind: actor.kind, projectId: actor.projectId, role: actor.role, ...caller.session },
        { 'cache-control': 'no-store' },
      );
    },
  };
}

/**
 * The session cookie: scripts cannot read it (HttpOnly), sent only to the management API. Over HTTPS it is `Secure`
 * and `SameSite=None; Partitioned`, so an operator's page that frames the console (its `allowedOrigins`) keeps the
 * session in that frame, in a cookie jar of that site alone; over plain HTTP (a laptop) `SameSite=Lax`.
 */
function sessionCookie(value: string, maxAge: number, where: { secure: boolean; cookiePath: string }): string {
  const base = `${PORTAL_COOKIE}=${value}; Path=${where.cookiePath}; Max-Age=${maxAge}; HttpOnly`;
  return where.secure ? `${base}; Secure; SameSite=None; Partitioned` : `${base}; SameSite=Lax`;
}
