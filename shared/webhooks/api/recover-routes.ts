import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import type { RecoverFailedDeliveries } from '../recover.ts';
import { recoverAccepted } from './schemas.ts';

/** ISO 8601 with a zone (`Z` or an offset). */
const instant = z.iso.datetime({ offset: true, error: 'Must be an ISO 8601 date-time with a zone' });

const recoverBody = z.strictObject({ since: instant, until: z.optional(instant) });

/** Recover a window of a webhook's failed deliveries (docs/reference/webhooks.md). */
export const recoverRoutes = {
  recoverDeliveries: route({
    method: 'POST',
    path: '/projects/{projectId}/integrations/{integrationId}/recover',
    body: recoverBody,
  }),
};

/** The recover route in the API reference (the OpenAPI document): what the declaration above cannot tell. */
export function recoverRouteDocs(): RouteDocs<typeof recoverRoutes> {
  return {
    recoverDeliveries: {
      operationId: 'recoverDeliveries',
      summary: 'Retry every failed delivery of a webhook in a window of event time',
      description:
        'Each failed delivery whose event `timestamp` is in [since, until) is retried: the same delivery, body and ' +
        '`webhook-id`, one attempt appended. Two calls at once never re-queue one delivery twice. `since` at most 30 ' +
        'days ago.',
      tags: ['Webhook deliveries'],
      responses: { 202: { description: 'Queued.', body: recoverAccepted } },
      errors: { 409: ['CONFLICT'] },
    },
  };
}

/** What serves the recover route. */
export function recoverHandlers(recover: RecoverFailedDeliveries): RouteHandlers<typeof recoverRoutes> {
  return {
    recoverDeliveries: async ({ params, body }) => {
      const out = await recover.recover(params.projectId, params.integrationId, {
        since: new Date(body.since),
        ...(body.until !== undefined ? { until: new Date(body.until) } : {}),
      });
      return json(202, { recovered: out.recovered, ...(out.continued ? { continued: true } : {}) });
    },
  };
}
