import { type KnowledgeSegmentRef, segmentRefs } from '../../bots/index.ts';
import type { IndexState, KnowledgeIndexStore } from '../knowledge-files.ts';
import { keys } from '../../contract/keys.ts';
import { applied, type DynamoTable, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';

/**
 * The knowledge fields of the bot item (layout in `keys.ts`): `ksegs` maps segment id → { key, docs, excerpts,
 * markers, bytes }, so adding a segment is `SET ksegs.#id` (no version check: ingest batches and deletes never
 * conflict) and a merge removes exactly its inputs, on condition they are all still there.
 */
export class DynamoKnowledgeIndexStore implements KnowledgeIndexStore {
  constructor(private readonly table: DynamoTable) {}

  async state(botId: string): Promise<IndexState | undefined> {
    const item = await readItem(this.table, keys.bot(botId), {
      ProjectionExpression: 'pk, kver, ksegs, kmerge, kretired',
    });
    if (!item) return undefined;
    return {
      version: (item.kver as number | undefined) ?? 0,
      segments: segmentRefs(item.ksegs),
      mergeUntil: (item.kmerge as number | undefined) ?? 0,
      retired: (item.kretired as Record<string, number> | undefined) ?? {},
    };
  }

  async addSegment(botId: string, segment: KnowledgeSegmentRef): Promise<boolean> {
    const { id, ...ref } = segment;
    const add = () =>
      applied(
        updateItem(this.table, {
          Key: keys.bot(botId),
          UpdateExpression: 'SET ksegs.#id = :ref, kver = if_not_exists(kver, :zero) + :one',
          ConditionExpression: 'attribute_exists(pk) AND attribute_exists(ksegs)',
          ExpressionAttributeNames: { '#id': id },
          ExpressionAttributeValues: { ':ref': ref, ':zero': 0, ':one': 1 },
        }),
      );
    if (await add()) return true;
    // A bot made before segments has no map yet: give it one (only if it still has none), then add.
    const initialised = await applied(
      updateItem(this.table, {
        Key: keys.bot(botId),
        UpdateExpression: 'SET ksegs = :empty',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(ksegs)',
        ExpressionAttributeValues: { ':empty': {} },
      }),
    );
    if (!initialised && !(await readItem(this.table, keys.bot(botId), { ProjectionExpression: 'pk' }))) return false;
    return add();
  }

  replaceSegments(
    botId: string,
    removed: KnowledgeSegmentRef[],
    added: KnowledgeSegmentRef | undefined,
    at: number,
  ): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':zero': 0, ':one': 1 };
    const sets = ['kver = if_not_exists(kver, :zero) + :one'];
    const conditions = ['attribute_exists(pk)'];
    const removes: string[] = [];
    removed.forEach((segment, i) => {
      names[`#r${i}`] = segment.id;
      names[`#k${i}`] = segment.key;
      values[`:at${i}`] = at;
      conditions.push(`attribute_exists(ksegs.#r${i})`);
      removes.push(`ksegs.#r${i}`);
      sets.push(`kretired.#k${i} = :at${i}`);
    });
    if (added) {
      const { id, ...ref } = added;
      names['#add'] = id;
      values[':add'] = ref;
      sets.push('ksegs.#add = :add');
    }
    return this.withRetiredMap(botId, () =>
      applied(
        updateItem(this.table, {
          Key: keys.bot(botId),
          UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  /** `kretired` must exist before a nested SET into it: created once, on a bot that lacks it. */
  private async withRetiredMap(botId: string, write: () => Promise<boolean>): Promise<boolean> {
    try {
      return await write();
    } catch (error) {
      if ((error as { name?: string }).name !== 'ValidationException') throw error;
      await applied(
        updateItem(this.table, {
          Key: keys.bot(botId),
          UpdateExpression: 'SET kretired = :empty',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(kretired)',
          ExpressionAttributeValues: { ':empty': {} },
        }),
      );
      return write();
    }
  }

  claimMerge(botId: string, now: number, until: number): Promise<boolean> {
    return applied(
      updateItem(this.table, {
        Key: keys.bot(botId),
        UpdateExpression: 'SET kmerge = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(kmerge) OR kmerge < :now)',
        ExpressionAttributeValues: { ':until': until, ':now': now },
      }),
    );
  }

  async releaseMerge(botId: string): Promise<void> {
    await applied(
      updateItem(this.table, {
        Key: keys.bot(botId),
        UpdateExpression: 'REMOVE kmerge',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  }

  async forgetRetired(botId: string, retiredKeys: string[]): Promise<void> {
    if (!retiredKeys.length) return;
    const names = Object.fromEntries(retiredKeys.map((k, i) => [`#k${i}`, k]));
    await applied(
      updateItem(this.table, {
        Key: keys.bot(botId),
        UpdateExpression: `REMOVE ${retiredKeys.map((_, i) => `kretired.#k${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
      }),
    );
  }
}
