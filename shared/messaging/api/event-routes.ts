import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { WebhookAdmin } from '#shared/webhooks/manage-deliveries.ts';
import { WEBHOOK_EVENT_TYPES } from '#shared/events/envelope.ts';
import * as z from '#shared/kernel/validation/zod.ts';

const reportEventBody = z.strictObject({
  channelId: z.string().check(z.minLength(1), z.maxLength(100)),
  type: z.enum(WEBHOOK_EVENT_TYPES),
  data: z.record(z.string(), z.unknown()),
});

/** Channel events reported by channel back ends, and the webhook test event. */
export const eventRoutes = {
  reportEvent: route({
    method: 'POST',
    path: '/projects/{projectId}/events',
    body: reportEventBody,
    // A channel back end that retries a report (a timeout, a lost answer) must not create the event twice.
    idempotent: true,
  }),
  sendTestEvent: route({
    method: 'POST',
    path: '/projects/{projectId}/integrations/{integrationId}/test',
    idempotent: true,
  }),
};

/** What serves the event routes. */
export function eventHandlers(admin: WebhookAdmin): RouteHandlers<typeof eventRoutes> {
  return {
    reportEvent: async ({ params, body }) => json(202, await admin.reportEvent(params.projectId, body)),
    sendTestEvent: async ({ params }) => json(202, await admin.sendTestEvent(params.projectId, params.integrationId)),
  };
}
