import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int, isoTime } from '../../http/wire-schemas.ts';
import { pageOf } from '../../http/pagination.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const delivery = withMeta(
  z.object({
    deliveryId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.array(
      z.object({
        at: isoTime,
        statusCode: withMeta(z.optional(int()), { description: "The receiver's status; absent when no answer came." }),
        durationMs: z.number(),
        error: z.optional(z.string()),
      }),
    ),
    nextAttemptAt: withMeta(z.optional(isoTime), {
      description: 'While pending: when the next automatic attempt runs.',
    }),
  }),
  { id: 'Delivery' },
);

export const deliveryPage = pageOf(delivery, 'DeliveryPage', 'Deliveries, newest first');

export const recoverAccepted = withMeta(
  z.object({
    recovered: withMeta(z.number().check(z.int()), { description: 'Failed deliveries this call re-queued.' }),
    continued: withMeta(z.optional(z.boolean()), {
      description: 'true when more failed deliveries were left to a worker to re-queue (very large windows).',
    }),
  }),
  { id: 'RecoverAccepted' },
);

export const retryAccepted = withMeta(z.object({ deliveryId: z.string(), status: z.literal('pending') }), {
  id: 'RetryAccepted',
});

/** A webhook's last 24 hours of delivery attempts, hour by hour (the console's health chart). */
export const webhookHealth = withMeta(
  z.object({
    succeeded: withMeta(int(), { description: 'Attempts answered 2xx in the 24 hours.' }),
    failed: withMeta(int(), { description: 'Attempts that failed in the 24 hours (any other answer, or none).' }),
    hours: withMeta(
      z.array(
        z.object({
          hour: withMeta(isoTime, { description: 'Start of the hour (UTC); 24 hours, the current one last.' }),
          succeeded: int(),
          failed: int(),
          medianLatencyMs: withMeta(z.nullable(int()), {
            description:
              'Median attempt latency, as the upper edge of the histogram bucket that holds it (edges 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 15000 ms); null in an hour without attempts.',
          }),
        }),
      ),
      { description: 'Every hour of the last 24, oldest first; an hour without attempts has zeros.' },
    ),
  }),
  { id: 'WebhookHealth' },
);
