import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '#shared/events/index.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import type { ReportEvent } from '../report-event.ts';

/**
 * What a channel back end may report (contract §5's list): message events and `webhook.test`. Contact events are this
 * service's own (they follow a suppression it keeps), so a report cannot claim one.
 */
const REPORTABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith('message.') || t === 'webhook.test');

const reportEventBody = z.strictObject({
  channelId: z.string().check(z.minLength(1), z.maxLength(100)),
  type: z.enum(REPORTABLE_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]),
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
