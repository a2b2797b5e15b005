import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import type { RecoverFailedDeliveries } from '#shared/webhooks/recover.ts';

/** ISO 8601 with a zone (`Z` or an offset). */
const instant = z.iso.datetime({ offset: true, error: 'Must be an ISO 8601 date-time with a zone' });

const recoverBody = z.strictObject({ since: instant, until: z.optional(instant) });

/** Recover a window of a webhook's failed deliveries (contract section 11). */
export const recoverRoutes = {
  recoverDeliveries: route({
    method: 'POST',
    path: '/projects/{projectId}/integrations/{integrationId}/recover',
    body: recoverBody,
  }),
};

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
