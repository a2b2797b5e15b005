import { declareSettings, nonEmpty, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/**
 * Deliveries: their attempts' deadline, the retry schedule, the endpoint gate, the failing notices and their
 * emails, recover's claims; and destinations in customers' AWS accounts, whose endpoints are set only where
 * stand-ins replace AWS (the local runner; on AWS each client finds its service in the destination's own region).
 * WEBHOOK_ALLOW_PRIVATE stays the kernel's: it is the SSRF policy every area that checks a URL shares.
 */
export const webhookSettings = declareSettings({
  /** A recover's claim on a failed delivery older than this was left by a recover that died: the next may take it. */
  WEBHOOK_RECOVER_CLAIM_STALE_SECONDS: z._default(z.coerce.number().check(z.gt(0)), 60),
  /** Delays between a delivery's automatic attempts (seconds, comma separated; default: retry-schedule.ts). */
  WEBHOOK_RETRY_SCHEDULE: z.optional(
    z.string().check(z.regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, 'comma-separated seconds')),
  ),
  /** A webhook failing this many delivery attempts in a row gets a `webhook.failing` notice. */
  WEBHOOK_FAILING_AFTER: z._default(positiveInt(1_000_000), 20),
  /**
   * SMTP server for the webhook notices' emails to a project's `contactEmail`: `smtps://` (TLS from the first byte) or
   * `smtp://` (STARTTLS required before anything is sent, credentials included; `?allowPlaintext=true` sends in clear
   * to a server that offers none), `host:port`, optional `user:pass@` (on AWS, SES's SMTP endpoint and SMTP
   * credentials). Unset: the notice is logged, not mailed.
   */
  NOTICE_SMTP_URL: z.optional(
    z
      .url({ protocol: /^smtps?$/, error: 'smtp:// or smtps:// URL' })
      .check(
        z.refine(
          (v) => [null, 'true', 'false'].includes(new URL(v).searchParams.get('allowPlaintext')),
          'allowPlaintext is true or false',
        ),
      ),
  ),
  /** The notices' `From`. */
  NOTICE_EMAIL_FROM: z._default(nonEmpty(), 'Switchboard <notices@switchboard.invalid>'),
  /** Delays between a notice email's attempts (seconds, comma separated; default 1 min up to 8 h: 9 attempts in ~16 h). */
  NOTICE_EMAIL_RETRY_SCHEDULE: z.optional(
    z.string().check(z.regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, 'comma-separated seconds')),
  ),
  /** Deadline of one webhook delivery attempt (15 s, docs/reference/webhooks.md); shorter only in tests. */
  WEBHOOK_ATTEMPT_TIMEOUT_MS: z._default(positiveInt(60_000), 15_000),
  /** Delivery attempts in flight at once to one destination, per deliver worker process (see endpoint-gate.ts). */
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: z._default(positiveInt(1_000), 10),
  /** An attempt unanswered this long marks its destination as slow: its further jobs are put back, not awaited. */
  WEBHOOK_SLOW_AFTER_MS: z._default(positiveInt(60_000), 1_000),
  /** STS, where the customer's role is assumed (on AWS: the deployment region's STS). */
  STS_ENDPOINT: z.optional(z.url()),
  SNS_ENDPOINT: z.optional(z.url()),
  EVENTBRIDGE_ENDPOINT: z.optional(z.url()),
  KINESIS_ENDPOINT: z.optional(z.url()),
  /** How long an assumed role's credentials last (900 to 3,600 s: a role's default maximum session). */
  DESTINATION_ROLE_SESSION_SECONDS: z._default(z.coerce.number().check(z.int(), z.gte(900), z.lte(3600)), 3600),
  /** Deadline of one delivery into an AWS destination, role included. */
  DESTINATION_ATTEMPT_TIMEOUT_MS: z._default(positiveInt(60_000), 15_000),
});

export type WebhookSettings = ReturnType<typeof webhookSettings.read>;
