import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { admitted, intervalMs, refused, type GcraParams, type RateDecision, type RateLimiter } from '../../ratelimit/gcra.ts';
import { isConditionFailure, keys, type DynamoTable } from './table.ts';

/**
 * GCRA in DynamoDB with no read and at most two conditional writes, so it holds across any number of instances:
 *  1. bucket full or idle (TAT <= now): TAT := now + interval;
 *  2. else, if one more fits (TAT <= now + window - interval): TAT := TAT + interval;
 *  3. else refused. A write that loses a race is not retried: losing means the bucket moved, and step 2 or the
 *     refusal is the right answer for the state it lost to.
 */
export class DynamoRateLimiter implements RateLimiter {
  constructor(
    private readonly table: DynamoTable,
    private readonly params: GcraParams,
  ) {}

  async admit(key: string, now: number): Promise<RateDecision> {
    const t = intervalMs(this.params);
    const expiresAt = Math.ceil((now + this.params.windowMs) / 1000) + 60;
    try {
      await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.rateLimit(key),
          UpdateExpression: 'SET tat = :next, expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
          ExpressionAttributeValues: { ':next': now + t, ':now': now, ':exp': expiresAt },
        }),
      );
      return admitted(now + t, now, this.params);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    try {
      const out = await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.rateLimit(key),
          UpdateExpression: 'SET tat = tat + :t, expiresAt = :exp',
          ConditionExpression: 'tat <= :max',
          ExpressionAttributeValues: { ':t': t, ':max': now + this.params.windowMs - t, ':exp': expiresAt },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return admitted(out.Attributes?.tat as number, now, this.params);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // DynamoDB returns the old item with the failure; dynalite does not, and the bounds answer then.
      const item = (error as { Item?: Record<string, { N?: string }> }).Item;
      const tat = item?.tat?.N !== undefined ? Number(item.tat.N) : undefined;
      return refused(tat, now, this.params);
    }
  }
}
