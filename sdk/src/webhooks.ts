/**
 * Webhook signature verification for receivers of Switchboard's webhooks: Standard Webhooks (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), re-exported from the `standardwebhooks` package, with the event typed
 * by the API's own document.
 *
 * ```ts
 * import { verifyWebhook } from '@switchboard/sdk/webhooks';
 * const event = verifyWebhook(process.env.SIGNING_SECRET!, rawBody, req.headers); // throws on a bad signature
 * if (event.type === 'message.received') …
 * ```
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './generated/schema.d.ts';

export { Webhook, WebhookVerificationError };

/** A webhook request's body, by event type (`message.received`…): narrow it on `type`. */
export type WebhookEvent = {
  [T in keyof webhooks]: NonNullable<webhooks[T]['post']>['requestBody'] extends {
    content: { 'application/json': infer E };
  }
    ? E
    : never;
}[keyof webhooks];

/**
 * Checks a webhook request's signature with the webhook's `whsec_` signing secret, over the raw body as received,
 * and answers the typed event; throws {@link WebhookVerificationError} when the signature or the timestamp (5
 * minutes of tolerance) is wrong. During a secret rotation requests carry both signatures: either secret verifies.
 */
export function verifyWebhook(
  signingSecret: string,
  rawBody: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | Headers,
): WebhookEvent {
  const plain: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) if (typeof value === 'string') plain[name.toLowerCase()] = value;
  const text = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  return new Webhook(signingSecret).verify(text, plain) as WebhookEvent;
}
