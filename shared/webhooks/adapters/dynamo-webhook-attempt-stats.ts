import {
  type AttemptHour,
  type CountedAttempt,
  foldAttempts,
  LATENCY_BUCKETS,
  type WebhookAttemptStats,
} from '../attempt-stats.ts';
import { type DynamoTable, queryAll, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { keys, webhookStatsPartition } from '../../contract/keys.ts';

/** An hour's counters are kept this long (the chart shows one day; a week is room for a later, longer view). */
const HOUR_RETENTION_SECONDS = 8 * 86400;
const BUCKET_ATTR = 'l';

/**
 * One item per webhook and UTC hour (`WHSTATS#<projectId>#<integrationId>` / `2026-11-24T06`): `succeeded`,
 * `failed` and `l<n>` attempts per latency bucket. A batch's attempts are folded per webhook and hour and each fold
 * is one UpdateItem of ADDs (atomic, no condition needed: ADD creates what is missing; concurrent batches add up);
 * a day is one Query over the hour range.
 */
export class DynamoWebhookAttemptStats implements WebhookAttemptStats {
  constructor(private readonly table: DynamoTable) {}

  async add(attempts: readonly CountedAttempt[]): Promise<void> {
    await Promise.all(
      foldAttempts(attempts).map((fold) => {
        const adds: string[] = [];
        const names: Record<string, string> = {};
        const values: Record<string, unknown> = { ':exp': Math.floor(fold.lastAt / 1000) + HOUR_RETENTION_SECONDS };
        const add = (attribute: string, n: number) => {
          const i = adds.length;
          adds.push(`#a${i} :n${i}`);
          names[`#a${i}`] = attribute;
          values[`:n${i}`] = n;
        };
        if (fold.succeeded) add('succeeded', fold.succeeded);
        if (fold.failed) add('failed', fold.failed);
        for (const [bucket, n] of fold.latencyBuckets) add(BUCKET_ATTR + bucket, n);
        return updateItem(this.table, {
          Key: keys.webhookHour(fold.projectId, fold.integrationId, fold.hour),
          UpdateExpression: `ADD ${adds.join(', ')} SET expiresAt = :exp`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        });
      }),
    );
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
