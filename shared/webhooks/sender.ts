/** The port through which a delivery attempt leaves the service (adapter: `shared/webhooks/adapters/http-webhook-sender.ts`). */

/** One HTTP POST of a delivery. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * How one attempt ended. `success` is a 2xx; `http-error` any other status (3xx included: redirects are not
 * followed); `timeout` the deadline passed; `network` no answer (refused, reset, DNS); `forbidden` the SSRF guard
 * refused the destination.
 */
export type AttemptOutcome =
  | { kind: 'success'; statusCode: number; durationMs: number }
  | {
      kind: 'http-error';
      statusCode: number;
      durationMs: number;
      error: string;
      /** The receiver's `Retry-After` header, raw (shared/webhooks/retry-after.ts reads it). */
      retryAfter?: string;
    }
  | { kind: 'timeout' | 'network' | 'forbidden'; durationMs: number; error: string };

/** Sends one delivery attempt; never throws, never waits past its deadline. */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<AttemptOutcome>;
}
