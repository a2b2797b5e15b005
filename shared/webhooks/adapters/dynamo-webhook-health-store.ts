import type { WebhookHealthStore } from '../ports.ts';
import { applied, type DynamoTable, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { keys } from '../../contract/keys.ts';

/** A health item outlives its last change by this much (it goes with a deleted webhook eventually). */
const HEALTH_RETENTION_SECONDS = 30 * 86400;

/**
 * Per-webhook failing state (`PRJ#<projectId>` / `WHHEALTH#<integrationId>`): `failingSince` is set by the first
 * failure after a success and removed by the next success. One UpdateItem each, no read.
 */
export class DynamoWebhookHealthStore implements WebhookHealthStore {
  constructor(private readonly table: DynamoTable) {}

  async recordFailure(projectId: string, integrationId: string, at: number): Promise<number> {
    const out = await updateItem(this.table, {
      Key: keys.webhookHealth(projectId, integrationId),
      UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :at), lastFailureAt = :at, expiresAt = :exp',
      ExpressionAttributeValues: { ':at': at, ':exp': Math.floor(at / 1000) + HEALTH_RETENTION_SECONDS },
      ReturnValues: 'UPDATED_NEW',
    });
    return (out.Attributes?.failingSince as number | undefined) ?? at;
  }

  async recordSuccess(projectId: string, integrationId: string, at: number): Promise<void> {
    await applied(
      updateItem(this.table, {
        Key: keys.webhookHealth(projectId, integrationId),
        UpdateExpression: 'SET lastSuccessAt = :at, expiresAt = :exp REMOVE failingSince',
        ConditionExpression: 'attribute_exists(failingSince)',
        ExpressionAttributeValues: { ':at': at, ':exp': Math.floor(at / 1000) + HEALTH_RETENTION_SECONDS },
      }),
    );
  }
}
