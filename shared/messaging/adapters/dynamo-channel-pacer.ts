import { keys } from '../../contract/keys.ts';
import { conditionalWrite, type DynamoTable, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import type { ChannelPacer } from '../volume/pace.ts';

/**
 * A channel's pace in DynamoDB. One item per channel (`CHPACE#<channelId>`) holds `next`, the first instant not yet
 * reserved (epoch ms), and `seq`, how many sends were planned: a reservation of a group of sends is one conditional
 * write, with no read first:
 *  - busy (`next` > now, within the horizon): the group starts at `next`, `next` moves past it;
 *  - idle (`next` <= now, or no item): the group starts now.
 * A group whose start would be beyond the horizon reserves nothing (its jobs wait on the queue instead).
 * Each slot is an item of its own (`CHPACE#<channelId>#<slot>`, `at`: its last send): an admission is one
 * conditional write on it (`at` <= now - window, or `at` = the instant the same send took it at before: a send
 * that did not leave on time moves its own stamp); a refusal returns the slot's item, which says when it frees.
 */
export class DynamoChannelPacer implements ChannelPacer {
  constructor(private readonly table: DynamoTable) {}

  async reserve(
    channelId: string,
    count: number,
    spacingMs: number,
    now: number,
    horizonMs: number,
  ): Promise<{ at: number; seq: number } | { later: number }> {
    const key = keys.channelPace(channelId);
    const span = count * spacingMs;
    const exp = Math.ceil(now / 1000) + 86400;
    const planned = (output: { Attributes?: Record<string, unknown> }) => Number(output.Attributes?.seq) - count;
    for (let round = 0; round < 8; round++) {
      const busy = await conditionalWrite(
        updateItem(this.table, {
          Key: key,
          UpdateExpression: 'SET #next = #next + :span, seq = if_not_exists(seq, :zero) + :count, expiresAt = :exp',
          ConditionExpression: '#next > :now AND #next <= :limit',
          ExpressionAttributeNames: { '#next': 'next' },
          ExpressionAttributeValues: {
            ':span': span,
            ':now': now,
            ':limit': now + horizonMs,
            ':exp': exp,
            ':zero': 0,
            ':count': count,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      if (busy.applied) return { at: (busy.output.Attributes?.next as number) - span, seq: planned(busy.output) };
      const idle = await conditionalWrite(
        updateItem(this.table, {
          Key: key,
          UpdateExpression: 'SET #next = :next, seq = if_not_exists(seq, :zero) + :count, expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(#next) OR #next <= :now',
          ExpressionAttributeNames: { '#next': 'next' },
          ExpressionAttributeValues: { ':next': now + span, ':now': now, ':exp': exp, ':zero': 0, ':count': count },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      if (idle.applied) return { at: now, seq: planned(idle.output) };
      const next = (await readItem(this.table, key))?.next;
      if (typeof next === 'number' && next > now + horizonMs) return { later: next };
    }
    throw new Error('channel pace: no reservation after 8 rounds of contention');
  }

  /** `queuedUntil` on the channel's pace item: one conditional write (two when the channel's queue was empty). */
  async plan(channelId: string, count: number, spacingMs: number, now: number): Promise<number> {
    const key = keys.channelPace(channelId);
    const span = count * spacingMs;
    const exp = Math.ceil((now + span) / 1000) + 86400;
    for (let round = 0; round < 8; round++) {
      const behind = await conditionalWrite(
        updateItem(this.table, {
          Key: key,
          UpdateExpression: 'SET queuedUntil = queuedUntil + :span, expiresAt = :exp',
          ConditionExpression: 'queuedUntil > :now',
          ExpressionAttributeValues: { ':span': span, ':now': now, ':exp': exp },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      if (behind.applied) return (behind.output.Attributes?.queuedUntil as number) - span;
      const empty = await conditionalWrite(
        updateItem(this.table, {
          Key: key,
          UpdateExpression: 'SET queuedUntil = :until, expiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(queuedUntil) OR queuedUntil <= :now',
          ExpressionAttributeValues: { ':until': now + span, ':now': now, ':exp': exp },
        }),
      );
      if (empty.applied) return now;
    }
    return now;
  }

  async admit(
    channelId: string,
    slot: number,
    windowMs: number,
    now: number,
    mine?: number,
  ): Promise<true | { retryAt: number }> {
    const key = keys.channelPaceSlot(channelId, slot);
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: key,
        UpdateExpression: 'SET #at = :now, expiresAt = :exp',
        ConditionExpression: `attribute_not_exists(#at) OR #at <= :earliest${mine === undefined ? '' : ' OR #at = :mine'}`,
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: {
          ':now': now,
          ':earliest': now - windowMs,
          ':exp': Math.ceil(now / 1000) + 86400,
          ...(mine === undefined ? {} : { ':mine': mine }),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    if (write.applied) return true;
    const before = write.itemBefore?.at?.N;
    const last = before !== undefined ? Number(before) : (await readItem(this.table, key))?.at;
    return { retryAt: typeof last === 'number' ? last + windowMs : now };
  }
}
