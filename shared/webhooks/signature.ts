import { createHmac, type KeyObject, sign } from 'node:crypto';
import { signingKeyObject } from '../integrations/index.ts';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), over `"{id}.{timestamp}.{body}"`:
 * - `v1,<base64 HMAC-SHA256>` under a secret's bytes (the base64 after `whsec_`). Receivers verify with any Standard
 *   Webhooks library, e.g. `new Webhook(secret).verify(body, headers)` from the `standardwebhooks` package;
 * - `v1a,<base64 ed25519 signature>` under a `whsk_` key. Receivers verify with the webhook's `whpk_`
 *   public key (node:crypto `verify(null, …)`, Python `cryptography`'s `Ed25519PublicKey.verify`: README).
 */
const SECRET_PREFIX = 'whsec_';

/** The key bytes of a `whsec_…` secret. */
export function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('Empty signing secret');
  return key;
}

/** One `v1,<signature>` entry for a message. */
export function signPayload(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  const mac = createHmac('sha256', signingKey(secret));
  mac.update(`${messageId}.${timestampSeconds}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** Key objects by `whsk_` key: parsing one costs more than a signature, and a worker signs for few webhooks. */
const keyObjects = new Map<string, KeyObject>();

function keyObjectOf(secretKey: string): KeyObject {
  let key = keyObjects.get(secretKey);
  if (!key) {
    if (keyObjects.size >= 1_000) keyObjects.clear();
    key = signingKeyObject(secretKey);
    keyObjects.set(secretKey, key);
  }
  return key;
}

/** One `v1a,<signature>` entry (ed25519) for a message. */
export function signPayloadEd25519(
  secretKey: string,
  messageId: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  const signed = Buffer.concat([Buffer.from(`${messageId}.${timestampSeconds}.`), Buffer.from(body)]);
  return `v1a,${sign(null, signed, keyObjectOf(secretKey)).toString('base64')}`;
}

/** What signs a delivery: the live HMAC secrets (`v1`) and ed25519 keys (`v1a`), current first. */
export interface SigningCredentials {
  secrets: readonly string[];
  keys: readonly string[];
}

/**
 * The `webhook-signature` header value: one entry per live secret and key, space-separated (during a rotation or a
 * switch of scheme the new and the previous credential both sign, so receivers holding either one verify).
 */
export function signatureHeader(
  credentials: SigningCredentials | readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  const { secrets, keys } = Array.isArray(credentials)
    ? { secrets: credentials as readonly string[], keys: [] as readonly string[] }
    : (credentials as SigningCredentials);
  if (!secrets.length && !keys.length) throw new Error('No signing secret');
  return [
    ...secrets.map((s) => signPayload(s, messageId, timestampSeconds, body)),
    ...keys.map((k) => signPayloadEd25519(k, messageId, timestampSeconds, body)),
  ].join(' ');
}

/** The Standard Webhooks headers of one delivery attempt. */
export function standardWebhookHeaders(
  credentials: SigningCredentials | readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string | Buffer,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(credentials, messageId, timestampSeconds, body),
  };
}
