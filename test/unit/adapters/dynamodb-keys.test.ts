import { describe, expect, it } from 'vitest';
import {
  backgroundIndex,
  collections,
  creditsKeyParts,
  deliveryPartitions,
  inCollection,
  keys,
  WEBHOOK_PARTITIONS,
  workIndex,
} from '#shared/contract/keys.ts';
import { mainTable } from '#shared/contract/table.ts';

// The stored layout: a deployment reads what the previous one wrote, so any change here loses data.
describe('DynamoDB item layout', () => {
  it('keeps every key as items were written', () => {
    expect(keys.project('p1')).toEqual({ pk: 'PRJ#p1', sk: 'PRJ' });
    expect(keys.token('h')).toEqual({ pk: 'TOKEN#h', sk: 'TOKEN' });
    expect(keys.credits('p1', '2026-11')).toEqual({ pk: 'PRJ#p1', sk: 'CREDITS#2026-11' });
    expect(keys.rateLimit('bots:t')).toEqual({ pk: 'RL#bots:t', sk: 'RL' });
    expect(keys.idempotency('h')).toEqual({ pk: 'IDEM#h', sk: 'IDEM' });
    expect(keys.channel('p1', 'c1')).toEqual({ pk: 'PRJ#p1', sk: 'CH#c1' });
    expect(keys.integration('p1', 'i1')).toEqual({ pk: 'PRJ#p1', sk: 'INT#i1' });
    expect(keys.generalWebhook('p1')).toEqual({ pk: 'PRJ#p1', sk: 'GENERAL_WEBHOOK' });
    expect(keys.message('p1', 'c1', 't', 'm1')).toEqual({ pk: 'PRJ#p1', sk: 'MSG#c1#t#m1' });
    expect(keys.delivery('p1', 'i1', 'dlv_1')).toEqual({ pk: 'DLV#p1#i1#01', sk: 'dlv_1' });
    expect(keys.delivery('p1', 'i1', 'dlv_2')).toEqual({ pk: 'DLV#p1#i1#08', sk: 'dlv_2' });
    expect(keys.webhookHour('p1', 'i1', '2026-11-24T06', 3)).toEqual({ pk: 'WHSTATS#p1#i1#03', sk: '2026-11-24T06' });
    expect(keys.webhookPace('p1', 'i1')).toEqual({ pk: 'PACE#p1#i1', sk: 'PACE' });
    expect(keys.webhookPace('p1', 'i1', 7)).toEqual({ pk: 'PACE#p1#i1#07', sk: 'PACE' });
    expect(keys.webhookHealth('p1', 'i1')).toEqual({ pk: 'PRJ#p1', sk: 'WHHEALTH#i1' });
    expect(keys.bot('b1')).toEqual({ pk: 'BOT#b1', sk: 'BOT' });
    expect(keys.knowledgeFile('b1', 'f1')).toEqual({ pk: 'BOT#b1', sk: 'FILE#f1' });
    expect(keys.botEntry('p1', 'b1')).toEqual({ pk: 'PRJ#p1', sk: 'BOT#b1' });
  });

  it('lists each kind by a prefix that matches its own keys and no other kind under the same partition', () => {
    const underProject = [
      [collections.channels('p1'), keys.channel('p1', 'c1')],
      [collections.integrations('p1'), keys.integration('p1', 'i1')],
      [collections.botEntries('p1'), keys.botEntry('p1', 'b1')],
      [collections.messages('p1', 'c1'), keys.message('p1', 'c1', 't', 'm1')],
    ] as const;
    const others = [
      keys.project('p1'),
      keys.credits('p1', '2026-11'),
      keys.generalWebhook('p1'),
      keys.webhookHealth('p1', 'i1'),
      keys.message('p1', 'c2', 't', 'm2'),
    ];
    for (const [collection, own] of underProject) {
      expect(own.pk).toBe(collection.pk);
      expect(own.sk.startsWith(collection.skPrefix)).toBe(true);
      const strangers = [...others, ...underProject.map(([, key]) => key).filter((key) => key !== own)];
      for (const other of strangers) expect(other.sk.startsWith(collection.skPrefix), other.sk).toBe(false);
    }
    expect(collections.knowledgeFiles('b1')).toEqual({ pk: 'BOT#b1', skPrefix: 'FILE#' });
    expect(deliveryPartitions('p1', 'i1')).toContain(keys.delivery('p1', 'i1', 'x').pk);
    expect(new Set(deliveryPartitions('p1', 'i1')).size).toBe(WEBHOOK_PARTITIONS);
    expect(inCollection(collections.channels('p1'), { ':x': 1 })).toEqual({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': 'PRJ#p1', ':prefix': 'CH#', ':x': 1 },
    });
  });

  it('reads a credits key back into its project and month', () => {
    expect(creditsKeyParts(keys.credits('prj_a#b', '2026-11'))).toEqual({ projectId: 'prj_a#b', month: '2026-11' });
  });

  it('puts background-index entries under the index the table defines, with sort keys that sort as time', () => {
    expect(mainTable.globalSecondaryIndexes.map((g) => g.indexName)).toContain(backgroundIndex.indexName);
    expect(backgroundIndex.projectEntry('2026-11-21T10:00:00.000Z', 'p1')).toEqual({
      [backgroundIndex.partitionKey]: 'PROJECTS',
      [backgroundIndex.sortKey]: '2026-11-21T10:00:00.000Z#p1',
    });
    expect(backgroundIndex.legacyCreditSweepPartition).toBe('CREDIT_SWEEP');
    const times = [5, 1_700_000_000_000, 99, 0];
    const sorted = times.map(backgroundIndex.sortableMs).sort();
    expect(sorted).toEqual([0, 5, 99, 1_700_000_000_000].map(backgroundIndex.sortableMs));
    expect(backgroundIndex.sortableMs(1_700_000_000_000)).toBe('001700000000000');
  });

  it('spreads what background jobs find over shards of the keys-only work index', () => {
    const work = mainTable.globalSecondaryIndexes.find((g) => g.indexName === workIndex.indexName);
    expect(work?.projection).toBe('KEYS_ONLY');
    expect(workIndex.outboxPartitions).toHaveLength(64);
    expect(workIndex.outboxPartitionOf('prj_1/conversation:c1')).toBe('OUTBOX#03');
    // One conversation's marks share a shard; many conversations use them all.
    expect(workIndex.outboxPartitionOf('prj_1/conversation:c1')).toBe(
      workIndex.outboxPartitionOf('prj_1/conversation:c1'),
    );
    const used = new Set(
      Array.from({ length: 2000 }, (_, n) => workIndex.outboxPartitionOf(`prj_1/conversation:${n}`)),
    );
    expect(used.size).toBe(64);
    // A failed delivery's entry is in the partition of its record's shard.
    const entry = workIndex.failedDeliveriesEntry('p1', 'i1', 'dlv_1');
    expect(entry).toEqual({ [workIndex.partitionKey]: 'DLVFAILED#p1#i1#01', [workIndex.sortKey]: 'dlv_1' });
    expect(workIndex.failedDeliveriesPartitions('p1', 'i1')).toContain(entry[workIndex.partitionKey]);
  });
});
