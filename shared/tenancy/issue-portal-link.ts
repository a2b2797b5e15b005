import { NotFoundError } from '../kernel/domain-error.ts';
import { hashToken, randomToken } from '../kernel/tokens.ts';
import type { Role } from './access.ts';
import { PORTAL_CODE_PREFIX, PORTAL_CODE_SECONDS, PORTAL_TTL, type PortalStore } from './portal.ts';

export interface IssuePortalLinkDeps {
  portal: PortalStore;
  projectExists(projectId: string): Promise<boolean>;
  /** The service's public base URL: every link starts with it. */
  baseUrl: string;
  /** How long the link's code may be exchanged. */
  codeSeconds?: number;
  now?: () => number;
}

/**
 * A one-time link that opens the console for one project with one role:
 * 1. the project must exist;
 * 2. a random code is stored (hashed) with the role, the session's lifetime and the project's session generation;
 * 3. the link is `<base>/portal?project=<id>#code=<code>`: the code rides in the fragment, which browsers never
 *    send to a server, so no access log or proxy sees it.
 * `expiresAt` is when the session would end if the link were opened now.
 */
export function makeIssuePortalLink(deps: IssuePortalLinkDeps) {
  const now = deps.now ?? Date.now;
  return async (projectId: string, input: { role: Role; ttlSeconds?: number }) => {
    if (!(await deps.projectExists(projectId))) throw new NotFoundError('project', `No project ${projectId}.`);
    const ttlSeconds = input.ttlSeconds ?? PORTAL_TTL.default;
    const code = randomToken(PORTAL_CODE_PREFIX);
    const at = now();
    await deps.portal.putCode(hashToken(code), {
      projectId,
      role: input.role,
      ttlSeconds,
      generation: await deps.portal.generation(projectId),
      usableUntil: at + (deps.codeSeconds ?? PORTAL_CODE_SECONDS) * 1000,
    });
    const base = deps.baseUrl.replace(/\/+$/, '');
    return {
      url: `${base}/portal?project=${encodeURIComponent(projectId)}#code=${code}`,
      expiresAt: new Date(at + ttlSeconds * 1000).toISOString(),
    };
  };
}
