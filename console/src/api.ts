import { servicePrefix } from './prefix.ts';
/** An error answer of the management API, in the contract's shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path: string; message: string }[] = [],
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export type Api = ReturnType<typeof createApi>;

/** The fields of the contract's error body, read from whatever came back (a success body has none of them). */
type ErrorAnswer = Partial<{ error: string; message: string; details: ApiError['details']; requestId: string }>;

/**
 * How the console proves who it is: the operator's admin key (a header), or a portal session (its cookie, which the
 * browser sends and scripts cannot read, and the session's CSRF token on every change).
 */
export type Credentials = { adminKey: string } | { csrfToken: string };

/**
 * The management API client: every call carries the credentials; errors become ApiError. `onUnauthorized` runs on a
 * 401 (the key was changed or is wrong, the session ended) so the console can sign out.
 */
export function createApi(
  credentials: Credentials | string,
  onUnauthorized: () => void,
  base = `${servicePrefix()}/admin/v1`,
) {
  const creds: Credentials = typeof credentials === 'string' ? { adminKey: credentials } : credentials;
  const authHeaders = (method: string): Record<string, string> =>
    'adminKey' in creds
      ? { authorization: `Bearer ${creds.adminKey}` }
      : method === 'GET'
        ? {}
        : { 'x-csrf-token': creds.csrfToken };
  async function call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const raw = body instanceof Blob || body instanceof ArrayBuffer;
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...authHeaders(method),
          ...(body === undefined ? {} : { 'content-type': contentType }),
        },
        body: body === undefined ? undefined : raw ? (body as BodyInit) : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'same-origin',
      });
    } catch {
      throw new ApiError(0, 'NETWORK_ERROR', 'The service could not be reached. Is it running?');
    }
    const text = await response.text();
    // The service's answer: a success body (typed by the caller) or the contract's error body.
    let parsed: ErrorAnswer | undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      if (response.status === 401) onUnauthorized();
      throw new ApiError(
        response.status,
        parsed?.error ?? 'ERROR',
        parsed?.message ?? `The request failed (${response.status}).`,
        parsed?.details ?? [],
        parsed?.requestId,
      );
    }
    return parsed as T;
  }
  /** Every item of a list, page after page (`?limit&cursor` → `{ items, nextCursor? }`, the API's one pattern). */
  async function all<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null | undefined;
    const sep = path.includes('?') ? '&' : '?';
    do {
      const page = await call<{ items: T[]; nextCursor?: string | null }>(
        'GET',
        `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }
  return {
    all,
    get: <T>(path: string) => call<T>('GET', path),
    post: <T>(path: string, body?: unknown) => call<T>('POST', path, body),
    patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body),
    put: <T>(path: string, body: Blob, contentType: string) => call<T>('PUT', path, body, contentType),
    del: (path: string) => call<undefined>('DELETE', path),
  };
}

/** Checks an admin key without side effects: the project listing answers 200 to a good key and 401 to a bad one. */
export async function checkAdminKey(adminKey: string, base = `${servicePrefix()}/admin/v1`): Promise<boolean> {
  const response = await fetch(`${base}/projects?limit=1`, {
    headers: { authorization: `Bearer ${adminKey}` },
    cache: 'no-store',
  });
  if (response.status === 401) return false;
  if (response.ok) return true;
  throw new ApiError(response.status, 'ERROR', `The service answered ${response.status}.`);
}

export const enc = encodeURIComponent;

/** Who the console is for: the operator (every project), or a portal session's one project and role. */
export type Role = 'viewer' | 'developer' | 'admin' | 'operator';
export interface PortalSession {
  projectId: string;
  role: Exclude<Role, 'operator'>;
  expiresAt: string;
  csrfToken: string;
}

/**
 * Opens the portal: the link's one-time code (from the URL's fragment) is traded for the session cookie; without a
 * code (a reload), the session the cookie already holds. Undefined when neither works (used, expired, ended).
 */
export async function openPortal(
  code: string | undefined,
  projectId: string | undefined,
  base = `${servicePrefix()}/admin/v1`,
) {
  const response = code
    ? await fetch(`${base}/portal/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, ...(projectId ? { projectId } : {}) }),
        credentials: 'same-origin',
        cache: 'no-store',
      })
    : await fetch(`${base}/session`, { credentials: 'same-origin', cache: 'no-store' });
  if (!response.ok) return undefined;
  const session = (await response.json()) as PortalSession & { kind: string };
  return session.kind === 'portal' ? session : undefined;
}
