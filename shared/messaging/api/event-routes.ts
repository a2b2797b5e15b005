import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { eventAccepted } from './schemas.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import { REPORTABLE_EVENT_TYPES } from '#shared/events/index.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import type { ReportEvent } from '../report-event.ts';

const reportEventBody = z.strictObject({
  channelId: z.string().check(z.minLength(1), z.maxLength(100)),
  // The service's own events (contact.*, webhook.failing, webhook.disabled) are not a channel's to report.
  type: z.enum(REPORTABLE_EVENT_TYPES as [string, ...string[]]) as z.ZodMiniType<
    (typeof REPORTABLE_EVENT_TYPES)[number]
  >,
  data: z.record(z.string(), z.unknown()),
});

/** Channel events reported by channel back ends. */
export const eventRoutes = {
  reportEvent: route({
    method: 'POST',
    path: '/projects/{projectId}/events',
    body: reportEventBody,
    // A channel back end that retries a report (a timeout, a lost answer) must not create the event twice.
    idempotent: true,
  }),
};

/** What serves the event routes. */
export function eventHandlers(reportEvent: ReportEvent): RouteHandlers<typeof eventRoutes> {
  return {
    reportEvent: async ({ params, body, event }) =>
      json(202, await reportEvent(params.projectId, body, event.idempotency)),
  };
}

/** The OpenAPI documentation of {@link eventRoutes}, beside their declarations. */
export function eventRouteDocs(): RouteDocs<typeof eventRoutes> {
  return {
    reportEvent: {
      operationId: 'reportEvent',
      summary: 'Report a channel event',
      description:
        "How channel back ends report events; each is delivered to every webhook that applies (the general one plus the channel's). " +
        "Over the project's `limits.eventsPerSecond`: 429 `RATE_LIMITED` with `Retry-After`, nothing queued.",
      tags: ['Webhook deliveries'],
      responses: { 202: { description: 'Queued.', body: eventAccepted } },
      errors: { 404: ['CHANNEL_NOT_FOUND'], 429: ['RATE_LIMITED'] },
    },
  };
}
