/**
 * What a token grants, found by the SHA-256 of the token. Written when a token is created and deleted when it is
 * revoked, replaced or rotated, so a dead token fails on the very next request with one strongly consistent read.
 */
export type TokenGrant = ProjectApiTokenGrant | CustomTokenGrant | PollerTokenGrant;

/** A project API token (Bots API). Carries what the hot path needs so that no project read is needed. */
export interface ProjectApiTokenGrant {
  kind: 'projectApi';
  projectId: string;
  companyId: number;
  monthlyBotCredits: number;
}

/** A custom integration token (send endpoint), bound to one channel. */
export interface CustomTokenGrant {
  kind: 'custom';
  projectId: string;
  integrationId: string;
  channelId: string;
}

/** A poller integration's token: reads the project's events (`GET /api/integration/events`) and nothing else. */
export interface PollerTokenGrant {
  kind: 'poller';
  projectId: string;
  integrationId: string;
}

export interface TokenStore {
  find(tokenHash: string): Promise<TokenGrant | undefined>;
  put(tokenHash: string, grant: TokenGrant): Promise<void>;
  delete(tokenHash: string): Promise<void>;
  /**
   * Sets a project API token's `monthlyBotCredits` to the project's allowance as of `revision` (the project's count
   * of allowance changes): a missing grant (revoked, replaced) is left missing, and an older revision never
   * overwrites a newer one, so concurrent changes end on the last.
   */
  setMonthlyBotCredits(tokenHash: string, monthlyBotCredits: number, revision: number): Promise<void>;
}
