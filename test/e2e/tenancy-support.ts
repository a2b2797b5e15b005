/** A portal session as a browser holds it: the cookie (as a `Cookie` header) and the CSRF token the console got. */
export interface PortalCookie {
  status: number;
  cookie: string;
  csrfToken: string;
  body: any;
  setCookie: string | null;
}

/** Exchanges a portal link's code as the console does; `cookie` is what a browser would send back. */
export async function openPortal(
  baseUrl: string,
  code: string,
  projectId?: string,
): Promise<Omit<PortalCookie, 'cookie' | 'csrfToken'> & { cookie?: string; csrfToken?: string }> {
  const response = await fetch(`${baseUrl}/admin/v1/portal/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, ...(projectId ? { projectId } : {}) }),
  });
  const body = (await response.json()) as any;
  const setCookie = response.headers.get('set-cookie');
  const cookie = setCookie ? setCookie.split(';')[0] : undefined;
  return {
    status: response.status,
    body,
    setCookie,
    ...(cookie ? { cookie } : {}),
    ...(body.csrfToken ? { csrfToken: body.csrfToken } : {}),
  };
}

/** The code of a portal link (`…/portal?project=…#code=sbp_…`). */
export const codeOf = (url: string) => new URL(url).hash.slice('#code='.length);
