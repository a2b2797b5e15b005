import { DynamoFailedDeliveries } from '#shared/adapters/dynamodb/failed-deliveries.ts';
import { DynamoIntegrationStore } from '#shared/adapters/dynamodb/integration-store.ts';
import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import { SqsRecoverContinuation } from '#shared/adapters/sqs/recover-continuation.ts';
import { SqsDeliveryQueue } from '#shared/adapters/sqs/webhook-queues.ts';
import type { Config } from '#shared/config/config.ts';
import type { SecretBox } from '#shared/integrations/secret-box.ts';
import { route, type Route } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import { recoverAccepted } from '#shared/openapi/schemas.ts';
import * as z from '#shared/validation/zod.ts';
import { makeRecoverFailedDeliveries, type RecoverFailedDeliveries } from '#shared/webhooks/recover.ts';

/** ISO 8601 with a zone (`Z` or an offset). */
const instant = z.iso.datetime({ offset: true, error: 'Must be an ISO 8601 date-time with a zone' });

const recoverBody = z.strictObject({ since: instant, until: z.optional(instant) });

/** Recover a window of a webhook's failed deliveries (contract section 11). */
export function recoverRoutes(recover: RecoverFailedDeliveries): Route[] {
  return [
    route({
      method: 'POST',
      path: '/projects/{projectId}/integrations/{integrationId}/recover',
      body: recoverBody,
      doc: {
        summary: 'Retry every failed delivery of a webhook in a window of event time',
        description:
          'Each failed delivery whose event `timestamp` is in [since, until) is retried: the same delivery, body and `webhook-id`, one attempt appended. Two calls at once never re-queue one delivery twice. `since` at most 30 days ago.',
        tags: ['Webhook deliveries'],
        responses: { 202: { description: 'Queued.', body: recoverAccepted } },
        errors: { 409: ['CONFLICT'] },
      },
      handle: async ({ params, body }) => {
        const out = await recover.recover(params.projectId!, params.integrationId!, {
          since: new Date(body.since),
          ...(body.until !== undefined ? { until: new Date(body.until) } : {}),
        });
        return json(202, { recovered: out.recovered, ...(out.continued ? { continued: true } : {}) });
      },
    }),
  ];
}

/** The recover use case wired to DynamoDB and the deliveries queue (composition for the admin function). */
export function recoverFromConfig(cfg: Config, table: DynamoTable, secretBox: SecretBox): RecoverFailedDeliveries {
  if (!cfg.QUEUE_URL_DELIVERIES) throw new Error('Invalid configuration: QUEUE_URL_DELIVERIES is required');
  return makeRecoverFailedDeliveries({
    webhooks: new DynamoIntegrationStore(table, secretBox),
    failed: new DynamoFailedDeliveries(table),
    queue: new SqsDeliveryQueue(sqsClient(cfg), cfg.QUEUE_URL_DELIVERIES),
    continuation: new SqsRecoverContinuation(sqsClient(cfg), cfg.QUEUE_URL_DELIVERIES),
    // API Gateway gives a request 29 s; the rest of a very large window goes on in the deliver worker.
    budgetMs: 15_000,
  });
}
