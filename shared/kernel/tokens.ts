import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Opaque tokens: a type prefix then 43 base64url characters (32 random bytes). Only their SHA-256 is stored; the
 * plain token is shown once. A 256-bit random secret needs no slow hash: SHA-256 cannot be brute-forced back.
 */
export const TOKEN_PREFIX = { projectApi: 'sbk_', custom: 'sbc_' } as const;
export type TokenKind = keyof typeof TOKEN_PREFIX;

const BODY = /^[A-Za-z0-9_-]{43}$/;

export function generateToken(kind: TokenKind): string {
  return TOKEN_PREFIX[kind] + randomBytes(32).toString('base64url');
}

export function isWellFormedToken(kind: TokenKind, token: string): boolean {
  const prefix = TOKEN_PREFIX[kind];
  return token.length === prefix.length + 43 && token.startsWith(prefix) && BODY.test(token.slice(prefix.length));
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two secrets of any length (both are hashed first, so lengths never leak). */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined when the header has another shape. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}
