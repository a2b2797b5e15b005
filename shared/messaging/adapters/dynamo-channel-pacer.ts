import { keys } from '../../contract/keys.ts';
import { applied, conditionalWrite, type DynamoTable, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import type { ChannelPacer } from '../volume/pace.ts';

/**
 * A channel's pace in DynamoDB: one item per channel (`CHPACE#<channelId>`) holding `next`, the first instant not yet
 * reserved (epoch ms). A reservation of a group of sends is one conditional write, with no read first:
 *  - busy (`next` > now, within the horizon): the group starts at `next`, `next` moves past it;
 *  - idle (`next` <= now, or no item): the group starts now.
 * A group whose start would be beyond the horizon reserves nothing (its jobs wait on the queue instead).
 * `last` is the last send let through: an admission is one conditional write (`last` <= now - spacing).
 */
export class DynamoChannelPacer implements ChannelPacer {
  constructor(private readonly table: DynamoTable) {}

  async reserve(
    channelId: string,
    count: number,
    spacingMs: number,
    now: number,
    horizonMs: number,
  ): Promise<number | { later: number }> {
    const key = keys.channelPace(channelId);
    const span = count * spacingMs;
    const exp = Math.ceil(now / 1000) + 86400;
    for (let round = 0; round < 8; round++) {
      const busy = await conditionalWrite(
        updateItem(this.table, {
          Key: key,
          UpdateExpression: 'SET #next = #next + :span, expiresAt = :exp',
          ConditionExpression: '#next > :now AND #next <= :limit',
          ExpressionAttributeNames: { '#next': 'next' },
          ExpressionAttributeValues: { ':span': span, ':now': now, ':limit': now + horizonMs, ':exp': exp },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      if (busy.applied) return (busy.output.Attributes?.next as number) - span;
      const idle = await applied(
        updateItem(this.table, {
          Key: key,
          UpdateExpression: 'SET #next = :next, expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(#next) OR #next <= :now',
          ExpressionAttributeNames: { '#next': 'next' },
          ExpressionAttributeValues: { ':next': now + span, ':now': now, ':exp': exp },
        }),
      );
      if (idle) return now;
      const next = (await readItem(this.table, key))?.next;
      if (typeof next === 'number' && next > now + horizonMs) return { later: next };
    }
    throw new Error('channel pace: no reservation after 8 rounds of contention');
  }

  admit(channelId: string, spacingMs: number, now: number): Promise<boolean> {
    return applied(
      updateItem(this.table, {
        Key: keys.channelPace(channelId),
        UpdateExpression: 'SET #last = :now',
        ConditionExpression: 'attribute_not_exists(#last) OR #last <= :earliest',
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: { ':now': now, ':earliest': now - spacingMs },
      }),
    );
  }
}
