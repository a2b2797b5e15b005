import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets that must be read back (webhook signing secrets, webhook bearer tokens, channel provider
 * credentials) with AES-256-GCM under the deployment's `SECRETS_KEY`. Each value is bound to where it is stored
 * (`context`, used as additional authenticated data), so a ciphertext copied onto another record does not decrypt.
 *
 * Stored form: `v1.<iv>.<ciphertext>.<tag>` (base64url parts, 12-byte random IV, 16-byte tag).
 *
 * It also makes keyed digests (`mac`): HMAC-SHA256 under a key derived from the deployment's key for one `context`
 * (HKDF-SHA256), so a digest made in one context (one channel's unsubscribe addresses, say) means nothing in another,
 * and the AES key itself never keys an HMAC.
 */
export interface SecretBox {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
  /** HMAC-SHA256 of `value` under the key derived for `context`: the same inputs give the same 32 bytes. */
  mac(value: string, context: string): Buffer;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Separates the keys `mac` derives from any other use of the deployment's key. */
const MAC_SALT = 'switchboard mac v1';
const MAC_KEYS_CACHED = 1_000;

/** A SecretBox over a 32-byte key given as base64 or base64url. */
export function createSecretBox(keyBase64: string): SecretBox {
  const key = Buffer.from(keyBase64.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes (base64)');
  const macKeys = new Map<string, Buffer>();
  return {
    mac(value, context) {
      let derived = macKeys.get(context);
      if (!derived) {
        derived = Buffer.from(hkdfSync('sha256', key, MAC_SALT, context, 32));
        // A worker serves a bounded set of channels; the cache is dropped rather than grown without end.
        if (macKeys.size >= MAC_KEYS_CACHED) macKeys.clear();
        macKeys.set(context, derived);
      }
      return createHmac('sha256', derived).update(value, 'utf8').digest();
    },
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        ciphertext.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    open(sealed, context) {
      const [version, iv, ciphertext, tag] = sealed.split('.');
      if (version !== VERSION || iv === undefined || ciphertext === undefined || tag === undefined) {
        throw new Error('Unrecognised sealed secret format');
      }
      const ivBytes = Buffer.from(iv, 'base64url');
      const tagBytes = Buffer.from(tag, 'base64url');
      // GCM verifies a tag cut short as readily as a whole one (a 4-byte tag is forged in about 2^32 tries):
      // only the full 16 bytes we write are accepted.
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('Sealed secret is malformed');
      const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
