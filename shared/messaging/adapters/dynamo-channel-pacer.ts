import { keys } from '../../contract/keys.ts';
import { conditionalWrite, type DynamoTable, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { type ChannelPacer, SLOTS_PER_RUN, type SlotAnswer, type SlotRequest } from '../volume/pace.ts';

/**
 * A channel's pace in DynamoDB. One item per channel (`CHPACE#<channelId>`) holds `next`, the first instant not yet
 * reserved (epoch ms), and `seq`, how many sends were planned: a reservation of a group of sends is one conditional
 * write, with no read first:
 *  - busy (`next` > now, within the horizon): the group starts at `next`, `next` moves past it;
 *  - idle (`next` <= now, or no item): the group starts now.
 * A group whose start would be beyond the horizon reserves nothing (its jobs wait on the queue instead): told so after
 * two rounds of two refused writes and a read.
 * A channel's slots are kept 40 to an item (`CHPACE#<channelId>#<run>`, attribute `s<slot>`: its last send). The sends
 * a worker takes together are admitted in one conditional write per item (each slot `<= at - window`, or equal to the
 * stamp the same send took it at before: a send that did not leave on time moves its own stamp); a refusal returns
 * the item, which says when each slot frees, and the sends whose slots were free ask again without the others.
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
      // Refused both ways: most often another reservation made the channel busy between the two (concurrent groups
      // finding it idle), and the next round's first write takes the place behind it. Only a second refusal is read
      // for a `next` beyond the horizon: a read a round for every loser of that race cost more than it told.
      if (round === 0) continue;
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
    windowMs: number,
    requests: readonly SlotRequest[],
  ): Promise<{ answers: SlotAnswer[]; stamps: Map<number, number> }> {
    const answers: SlotAnswer[] = [];
    const stamps = new Map<number, number>();
    const byItem = new Map<number, number[]>();
    requests.forEach((r, i) => {
      const run = Math.floor(r.slot / SLOTS_PER_RUN);
      byItem.set(run, [...(byItem.get(run) ?? []), i]);
    });
    const free = (r: SlotRequest, last: number | undefined) =>
      last === undefined || last <= r.at - windowMs || last === r.mine;
    await Promise.all(
      [...byItem].map(async ([run, indices]) => {
        const first = await this.write(channelId, run, windowMs, indices, requests, stamps);
        if (first) {
          for (const i of indices) answers[i] = true;
          return;
        }
        // Refused as a whole when one slot is taken: the sends whose slots were free ask again without it.
        const again = indices.filter((i) => free(requests[i]!, stamps.get(requests[i]!.slot)));
        for (const i of indices)
          if (!again.includes(i)) answers[i] = { retryAt: stamps.get(requests[i]!.slot)! + windowMs };
        if (!again.length) return;
        const second = await this.write(channelId, run, windowMs, again, requests, stamps);
        for (const i of again) {
          const r = requests[i]!;
          const last = stamps.get(r.slot);
          // Taken meanwhile: free when its new owner's window ends; still free (another was taken): asked again.
          answers[i] = second ? true : { retryAt: free(r, last) ? r.at : last! + windowMs };
        }
      }),
    );
    return { answers, stamps };
  }

  /**
   * One conditional write on a run's item: every request's slot free at its `at` (or its own), each set to its `at`.
   * Whether it applied; the item's slots, as it left them or as they stopped it, go into `stamps`.
   */
  private async write(
    channelId: string,
    run: number,
    windowMs: number,
    indices: readonly number[],
    all: readonly SlotRequest[],
    stamps: Map<number, number>,
  ): Promise<boolean> {
    const requests = indices.map((i) => all[i]!);
    const key = keys.channelPaceSlots(channelId, run);
    const names: Record<string, string> = {};
    const values: Record<string, number> = {
      ':exp': Math.ceil(Math.max(...requests.map((r) => r.at)) / 1000) + 86400,
    };
    const sets: string[] = [];
    const conditions: string[] = [];
    requests.forEach((r, j) => {
      names[`#s${j}`] = slotAttribute(r.slot);
      values[`:at${j}`] = r.at;
      values[`:earliest${j}`] = r.at - windowMs;
      if (r.mine !== undefined) values[`:mine${j}`] = r.mine;
      sets.push(`#s${j} = :at${j}`);
      conditions.push(
        `(attribute_not_exists(#s${j}) OR #s${j} <= :earliest${j}${r.mine === undefined ? '' : ` OR #s${j} = :mine${j}`})`,
      );
    });
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}, expiresAt = :exp`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        // The item's other slots come back with it (no extra read, no extra unit): what other workers did to them.
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const note = (slot: number, value: unknown) => {
      if (value !== undefined) stamps.set(slot, Number(value));
    };
    const slotOf = (name: string) => (name.startsWith('s') ? Number(name.slice(1)) : Number.NaN);
    if (write.applied) {
      for (const [name, value] of Object.entries(write.output.Attributes ?? {}))
        if (Number.isInteger(slotOf(name))) note(slotOf(name), value);
      return true;
    }
    // The local stand-in returns no item with a refusal: read it.
    const before = write.itemBefore
      ? Object.fromEntries(Object.entries(write.itemBefore).map(([name, v]) => [name, v.N]))
      : ((await readItem(this.table, key)) ?? {});
    for (const [name, value] of Object.entries(before)) if (Number.isInteger(slotOf(name))) note(slotOf(name), value);
    // A slot the item does not hold is free: forget what an earlier write of this call noted of it.
    for (const r of requests) if (before[slotAttribute(r.slot)] === undefined) stamps.delete(r.slot);
    return false;
  }
}

const slotAttribute = (slot: number) => `s${slot}`;
