import { newId } from '../kernel/ids.ts';
import { hashToken, hasTokenShape, randomToken, secretsEqual } from '../kernel/tokens.ts';
import type { Role } from './access.ts';
import { PORTAL_CODE_PREFIX, type PortalStore } from './portal.ts';

export interface PortalSessionsDeps {
  portal: PortalStore;
  now?: () => number;
}

/** What the console holds once a link was opened: the cookie's value and the token state-changing calls carry. */
export interface OpenedSession {
  sessionId: string;
  projectId: string;
  role: Role;
  expiresAt: string;
  /** The cookie's value: `<projectId>.<sessionId>.<secret>` (the secret is stored only hashed). */
  cookie: string;
  csrfToken: string;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The CSRF token of a session: derived from the cookie's secret, so only a page that was given it (the console, by
 * the exchange or by `GET /session`) can send it; another site's page can make the browser send the cookie, never
 * the token. Nothing more is stored.
 */
export const csrfTokenOf = (secret: string) => hashToken(`csrf:${secret}`);

/**
 * Portal sessions:
 * - exchange: a link's code for a session, once, within the code's 5 minutes, while the project has not ended its
 *   sessions since the link was made; the link's project must be the code's (a link edited to name another project
 *   opens nothing). Anything else: undefined (401, the same answer for every reason).
 * - recognise: the session a cookie names, while it lives and the project has not ended its sessions.
 */
export function makePortalSessions(deps: PortalSessionsDeps) {
  const now = deps.now ?? Date.now;
  return {
    async exchange(code: string, linkProjectId?: string): Promise<OpenedSession | undefined> {
      if (!hasTokenShape(PORTAL_CODE_PREFIX, code)) return undefined;
      const found = await deps.portal.takeCode(hashToken(code));
      const at = now();
      if (!found || found.usableUntil < at) return undefined;
      if (linkProjectId !== undefined && linkProjectId !== found.projectId) return undefined;
      if ((await deps.portal.generation(found.projectId)) !== found.generation) return undefined;
      const secret = randomToken('');
      const session = {
        sessionId: newId('pss'),
        projectId: found.projectId,
        role: found.role,
        generation: found.generation,
        secretHash: hashToken(secret),
        expiresAt: new Date(at + found.ttlSeconds * 1000).toISOString(),
      };
      await deps.portal.putSession(session);
      const { secretHash: _, generation: __, ...open } = session;
      return { ...open, cookie: `${session.projectId}.${session.sessionId}.${secret}`, csrfToken: csrfTokenOf(secret) };
    },

    async recognise(cookie: string) {
      const [projectId, sessionId, secret, ...rest] = cookie.split('.');
      if (rest.length || !projectId || !sessionId || !secret) return undefined;
      if (!ID.test(projectId) || !ID.test(sessionId) || !hasTokenShape('', secret)) return undefined;
      const found = await deps.portal.findSession(projectId, sessionId);
      const session = found?.session;
      if (!session || !secretsEqual(session.secretHash, hashToken(secret))) return undefined;
      if (Date.parse(session.expiresAt) <= now() || session.generation !== found.generation) return undefined;
      return { session, csrfToken: csrfTokenOf(secret) };
    },

    endAll: (projectId: string) => deps.portal.endAll(projectId),
  };
}

export type PortalSessions = ReturnType<typeof makePortalSessions>;
