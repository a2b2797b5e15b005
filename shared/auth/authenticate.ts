import { bearerToken, hashToken } from '../kernel/tokens.ts';
import { isWellFormedToken } from './tokens.ts';
import type { CustomTokenGrant, PollerTokenGrant, ProjectApiTokenGrant, TokenStore } from './token-store.ts';

/** Why a Bots API request was not authenticated, with the contract's codes. */
export type ApiTokenFailure =
  | 'ERR_API_TOKEN_NOT_PROVIDED'
  | 'ERR_API_TOKEN_INVALID_FORMAT'
  | 'ERR_API_TOKEN_INVALID'
  | 'ERR_API_TOKEN_AUTHENTICATION_FAILED';

export type ApiTokenResult =
  | { ok: true; grant: ProjectApiTokenGrant; tokenHash: string }
  | { ok: false; failure: ApiTokenFailure; cause?: unknown };

/**
 * Authenticates a Bots API request from its Authorization header:
 * 1. no header → NOT_PROVIDED; 2. not `Bearer sbk_…` of the right shape → INVALID_FORMAT;
 * 3. one consistent read by the token's hash: unknown or revoked → INVALID;
 * 4. the store unreachable, or a grant without its project → AUTHENTICATION_FAILED.
 */
export function makeAuthenticateApiToken(deps: { tokens: TokenStore }) {
  return async function authenticateApiToken(authorization: string | undefined): Promise<ApiTokenResult> {
    if (authorization === undefined) return { ok: false, failure: 'ERR_API_TOKEN_NOT_PROVIDED' };
    const token = bearerToken(authorization);
    if (token === undefined || !isWellFormedToken('projectApi', token))
      return { ok: false, failure: 'ERR_API_TOKEN_INVALID_FORMAT' };
    const tokenHash = hashToken(token);
    let grant: Awaited<ReturnType<TokenStore['find']>>;
    try {
      grant = await deps.tokens.find(tokenHash);
    } catch (cause) {
      return { ok: false, failure: 'ERR_API_TOKEN_AUTHENTICATION_FAILED', cause };
    }
    if (grant === undefined || grant.kind !== 'projectApi') return { ok: false, failure: 'ERR_API_TOKEN_INVALID' };
    if (!grant.projectId || typeof grant.companyId !== 'number')
      return { ok: false, failure: 'ERR_API_TOKEN_AUTHENTICATION_FAILED' };
    return { ok: true, grant, tokenHash };
  };
}

/** Authenticates a send-endpoint request: any failure is the same 401 (the caller learns nothing more). */
export function makeAuthenticateCustomToken(deps: { tokens: TokenStore }) {
  return async function authenticateCustomToken(
    authorization: string | undefined,
  ): Promise<CustomTokenGrant | undefined> {
    const token = bearerToken(authorization);
    if (token === undefined || !isWellFormedToken('custom', token)) return undefined;
    const grant = await deps.tokens.find(hashToken(token));
    return grant?.kind === 'custom' ? grant : undefined;
  };
}

/** Authenticates a poller's request: an `sbp_` token whose grant is a poller's, else undefined (401). */
export function makeAuthenticatePollerToken(deps: { tokens: TokenStore }) {
  return async function authenticatePollerToken(
    authorization: string | undefined,
  ): Promise<PollerTokenGrant | undefined> {
    const token = bearerToken(authorization);
    if (token === undefined || !isWellFormedToken('poller', token)) return undefined;
    const grant = await deps.tokens.find(hashToken(token));
    return grant?.kind === 'poller' ? grant : undefined;
  };
}
