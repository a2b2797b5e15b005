/** The public Bots API as the console's try-it area calls it: the pasted token, its balance, its failures. */

// The project API token for trying the bots: kept in this tab's sessionStorage (like the admin key), never in
// localStorage, so it is gone when the tab closes. The console cannot read the token back from the service (it is
// shown once), so the user pastes it.
const tokenKey = (projectId: string) => `switchboard.apiToken.${projectId}`;

export function loadApiToken(projectId: string): string {
  try {
    return sessionStorage.getItem(tokenKey(projectId)) ?? '';
  } catch {
    return '';
  }
}

export function saveApiToken(projectId: string, token: string): void {
  try {
    if (token) sessionStorage.setItem(tokenKey(projectId), token);
    else sessionStorage.removeItem(tokenKey(projectId));
  } catch {
    // Storage disabled: the token stays in memory for this page only.
  }
}

/** An answer of the public Bots API that was not a success, told in words a panel user can act on. */
export class BotsApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function failure(response: Response): Promise<BotsApiError> {
  let message = '';
  try {
    const body = (await response.json()) as { error?: { message?: string } | string; message?: string };
    message = typeof body.error === 'object' ? (body.error.message ?? '') : (body.message ?? '');
  } catch {
    // Not JSON: the status says enough.
  }
  const told: Record<number, string> = {
    401: 'The API token was not accepted. Paste the project API token (create or replace it under "API token & credits").',
    402: 'No bot credits left this month: the request was not charged. Grant credits under "API token & credits".',
    429: `Too many requests: the project's rate limit was reached. Try again in ${response.headers.get('retry-after') ?? 'a few'} seconds.`,
  };
  return new BotsApiError(
    response.status,
    told[response.status] ?? `The Bots API answered ${response.status}. ${message}`,
  );
}

export async function balance(token: string): Promise<number | undefined> {
  const response = await fetch('/api/v1/ai/health', {
    headers: { authorization: `Bearer ${token}` },
    cache: 'no-store',
  });
  if (!response.ok) throw await failure(response);
  return ((await response.json()) as { creditos?: { disponivel?: number } }).creditos?.disponivel;
}
