import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Opaque secrets: a prefix then 43 base64url characters (32 random bytes). Only their SHA-256 is stored; the plain
 * value is shown once. A 256-bit random secret needs no slow hash: SHA-256 cannot be brute-forced back.
 */
const BODY = /^[A-Za-z0-9_-]{43}$/;

/** `prefix` + 32 random bytes in base64url. */
export function randomToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** Whether `token` is `prefix` + 43 base64url characters (the shape {@link randomToken} makes). */
export function hasTokenShape(prefix: string, token: string): boolean {
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
