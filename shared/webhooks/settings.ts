import { declareSettings, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/**
 * Webhook destinations in customers' AWS accounts. The endpoints are set only where stand-ins replace AWS (the local
 * runner); on AWS each client finds its service in the destination's own region.
 */
export const webhookSettings = declareSettings({
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
