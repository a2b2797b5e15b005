import {
  type AttemptHour,
  type CountedAttempt,
  foldAttempts,
  LATENCY_BUCKETS,
  type WebhookAttemptStats,
} from '../attempt-stats.ts';
import { type DynamoTable, queryAll, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { keys, WEBHOOK_PARTITIONS, webhookStatsPartitions } from '../../contract/keys.ts';

/** An hour's counters are kept this long (the chart shows one day; a week is room for a later, longer view). */
const HOUR_RETENTION_SECONDS = 8 * 86400;
const BUCKET_ATTR = 'l';

/**
 * Items per webhook and UTC hour (`WHSTATS#<projectId>#<integrationId>#<shard>` / `2026-11-24T06`): `succeeded`,
 * `failed` and `l<n>` attempts per latency bucket. A batch's attempts are folded per webhook and hour and each fold
 * is one UpdateItem of ADDs (atomic, no condition needed: ADD creates what is missing; concurrent batches add up)
 * on one of the webhook's 16 counter partitions, picked at random: a webhook busy enough to fold thousands of batches
 * a second spreads them, where one item would take 1,000. A day is one Query over the hour range per partition,
 * added up.
 */
export class DynamoWebhookAttemptStats implements WebhookAttemptStats {
  constructor(
    private readonly table: DynamoTable,
    private readonly random: () => number = Math.random,
  ) {}

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
          Key: keys.webhookHour(
            fold.projectId,
            fold.integrationId,
            fold.hour,
            Math.floor(this.random() * WEBHOOK_PARTITIONS),
          ),
          UpdateExpression: `ADD ${adds.join(', ')} SET expiresAt = :exp`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        });
      }),
    );
  }

  async hours(projectId: string, integrationId: string, fromHour: string, toHour: string): Promise<AttemptHour[]> {
    const partitions = await Promise.all(
      webhookStatsPartitions(projectId, integrationId).map((pk) =>
        queryAll(this.table, {
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': pk, ':from': fromHour, ':to': toHour },
          ConsistentRead: true,
        }),
      ),
    );
    const count = (item: Record<string, unknown>, name: string) =>
      typeof item[name] === 'number' ? (item[name] as number) : 0;
    const byHour = new Map<string, AttemptHour>();
    for (const item of partitions.flat()) {
      const hour = item.sk as string;
      let sum = byHour.get(hour);
      if (!sum) {
        sum = { hour, succeeded: 0, failed: 0, latencyBuckets: new Array<number>(LATENCY_BUCKETS).fill(0) };
        byHour.set(hour, sum);
      }
      sum.succeeded += count(item, 'succeeded');
      sum.failed += count(item, 'failed');
      for (let n = 0; n < LATENCY_BUCKETS; n++) sum.latencyBuckets[n]! += count(item, BUCKET_ATTR + n);
    }
    return [...byHour.values()].sort((a, b) => (a.hour < b.hour ? -1 : a.hour > b.hour ? 1 : 0));
  }
}
