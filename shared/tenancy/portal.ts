import type { Role } from './access.ts';

/** A one-time code of a portal link, as stored (under the code's hash). */
export interface PortalCode {
  projectId: string;
  role: Role;
  /** How long the session it opens lives. */
  ttlSeconds: number;
  /** The project's session generation when the link was made: ending every session makes it stale. */
  generation: number;
  /** Epoch milliseconds after which the code opens nothing. */
  usableUntil: number;
}

/** A portal session: the console opened by a link, for one project, with one role, until `expiresAt`. */
export interface PortalSession {
  sessionId: string;
  projectId: string;
  role: Role;
  generation: number;
  /** SHA-256 of the session's secret (the cookie carries the secret). */
  secretHash: string;
  expiresAt: string;
}

/** Where links' codes and sessions live. */
export interface PortalStore {
  /** The project's current session generation (0 before any "end all"). */
  generation(projectId: string): Promise<number>;
  /** Makes every session and unused link of the project stale at once. */
  endAll(projectId: string): Promise<void>;
  putCode(codeHash: string, code: PortalCode): Promise<void>;
  /** Removes the code and returns it, once: a second take of the same code finds nothing. */
  takeCode(codeHash: string): Promise<PortalCode | undefined>;
  putSession(session: PortalSession): Promise<void>;
  /** The session and its project's current generation, read together. */
  findSession(
    projectId: string,
    sessionId: string,
  ): Promise<{ session?: PortalSession; generation: number } | undefined>;
}

/** Codes of portal links: `sbp_` then 43 base64url characters. */
export const PORTAL_CODE_PREFIX = 'sbp_';
/** A link's code opens a session only within this long of being made. */
export const PORTAL_CODE_SECONDS = 300;
/** Session lifetimes a link may ask for, and the default. */
export const PORTAL_TTL = { min: 60, max: 86_400, default: 3_600 } as const;
