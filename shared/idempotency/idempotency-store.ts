/**
 * Records of `Idempotency-Key` requests. A record is claimed by the first request (in progress, with a lock that
 * expires if that request dies), then completed with the response to replay for 24 h, or released when the request
 * failed in a way a retry should re-run (5xx).
 */
export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
}

export type ClaimResult =
  /** `firstClaimedAt`: when this key was first claimed (kept when a retry takes over from a request that died). */
  | { kind: 'claimed'; firstClaimedAt: number }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in-progress' }
  | { kind: 'mismatch' };

export interface IdempotencyClaim {
  /** Who may use the key: a token, an integration or a project, so keys of different callers never meet. */
  scope: string;
  key: string;
  /** Hash of what makes two requests "the same": method, path and body. */
  fingerprint: string;
  /** Unique id of this attempt, so a request whose lock expired cannot complete over its successor. */
  owner: string;
  now: number;
  lockMs: number;
  retentionMs: number;
}

export interface IdempotencyStore {
  claim(claim: IdempotencyClaim): Promise<ClaimResult>;
  complete(claim: IdempotencyClaim, response: StoredResponse): Promise<void>;
  release(claim: IdempotencyClaim): Promise<void>;
}
