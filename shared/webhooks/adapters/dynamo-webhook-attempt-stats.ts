import {
  type AttemptHour,
  hourLabel,
  LATENCY_BUCKETS,
  latencyBucket,
  type WebhookAttemptStats,
} from '../attempt-stats.ts';
import { type DynamoTable, queryAll, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { keys, webhookStatsPartition } from '../../contract/keys.ts';

/** An hour's counters are kept this long (the chart shows one day; a week is room for a later, longer view). */
const HOUR_RETENTION_SECONDS = 8 * 86400;
const BUCKET_ATTR = 'l';

/**
 * One item per webhook and UTC hour (`WHSTATS#<projectId>#<integrationId>` / `2026-11-24T06`): `succeeded`,
 * `failed` and `l<n>` attempts per latency bucket. Each attempt is one UpdateItem of ADDs (atomic, no condition
 * needed: ADD creates what is missing); a day is one Query over the hour range.
 */
export class DynamoWebhookAttemptStats implements WebhookAttemptStats {
  constructor(private readonly table: DynamoTable) {}

  async record(
    projectId: string,
    integrationId: string,
    attempt: { at: number; succeeded: boolean; durationMs: number },
  ): Promise<void> {
    const hour = hourLabel(attempt.at);
    await updateItem(this.table, {
      Key: keys.webhookHour(projectId, integrationId, hour),
      UpdateExpression: 'ADD #outcome :one, #bucket :one SET expiresAt = :exp',
      ExpressionAttributeNames: {
        '#outcome': attempt.succeeded ? 'succeeded' : 'failed',
        '#bucket': BUCKET_ATTR + latencyBucket(attempt.durationMs),
      },
      ExpressionAttributeValues: { ':one': 1, ':exp': Math.floor(attempt.at / 1000) + HOUR_RETENTION_SECONDS },
    });
  }

  async hours(projectId: string, integrationId: string, fromHour: string, toHour: string): Promise<AttemptHour[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': webhookStatsPartition(projectId, integrationId),
        ':from': fromHour,
        ':to': toHour,
      },
      ConsistentRead: true,
    });
    const count = (item: Record<string, unknown>, name: string) =>
      typeof item[name] === 'number' ? (item[name] as number) : 0;
    return items.map((item) => ({
      hour: item.sk as string,
      succeeded: count(item, 'succeeded'),
      failed: count(item, 'failed'),
      latencyBuckets: Array.from({ length: LATENCY_BUCKETS }, (_, n) => count(item, BUCKET_ATTR + n)),
    }));
  }
}
