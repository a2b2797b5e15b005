import { createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks secret format): a `v1` webhook's HMAC secret. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Ed25519 signing keys for `v1a` signatures (Standard Webhooks), in the Standard Webhooks text forms:
 * the secret key `whsk_` + base64 of the 32-byte seed and the 32-byte public key (64 bytes, as libsodium keeps
 * them), the public key `whpk_` + base64 of its 32 raw bytes. The secret key is stored sealed and never shown; the
 * public key is shown on the webhook (it verifies and cannot sign).
 */
const SECRET_PREFIX = 'whsk_';
const PUBLIC_PREFIX = 'whpk_';

/** A new `whsk_…` secret key. */
export function generateSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d!, 'base64url');
  const pub = Buffer.from(jwk.x!, 'base64url');
  return SECRET_PREFIX + Buffer.concat([seed, pub]).toString('base64');
}

function keyBytes(secretKey: string): { seed: Buffer; pub: Buffer } {
  if (!secretKey.startsWith(SECRET_PREFIX)) throw new Error('Not a whsk_ signing key');
  const raw = Buffer.from(secretKey.slice(SECRET_PREFIX.length), 'base64');
  if (raw.length !== 64) throw new Error('A whsk_ signing key holds 64 bytes');
  return { seed: raw.subarray(0, 32), pub: raw.subarray(32) };
}

/** The `whpk_…` public key of a `whsk_…` secret key. */
export function publicKeyOf(secretKey: string): string {
  return PUBLIC_PREFIX + keyBytes(secretKey).pub.toString('base64');
}

/** The key object node:crypto signs with (`sign(null, data, key)`). */
export function signingKeyObject(secretKey: string): KeyObject {
  const { seed, pub } = keyBytes(secretKey);
  return createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', d: seed.toString('base64url'), x: pub.toString('base64url') },
    format: 'jwk',
  });
}
