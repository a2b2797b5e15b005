import { createHash } from 'node:crypto';
import {
  CreateStreamCommand,
  DescribeStreamCommand,
  DescribeStreamSummaryCommand,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  InvalidArgumentException,
  ListShardsCommand,
  PutRecordCommand,
  PutRecordsCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  waitUntilStreamExists,
} from '@aws-sdk/client-kinesis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamRecords } from '#test/support/local-aws.ts';
import { startStandIns, type StandIns } from './stand-ins.ts';

/** Kinesis Data Streams' stand-in through its SDK client: shards by MD5 hash range, iterators, reads, errors. */
let aws: StandIns;
beforeAll(async () => {
  aws = await startStandIns();
});
afterAll(async () => aws?.stop());

const text = (data: Uint8Array | undefined) => Buffer.from(data ?? []).toString('utf8');

/** The shard AWS puts a partition key in among `count` even shards: MD5 as a 128-bit number, over the range size. */
function expectedShard(key: string, count: number): string {
  const hash = BigInt(`0x${createHash('md5').update(key).digest('hex')}`);
  const index = Number(hash / (2n ** 128n / BigInt(count)));
  return `shardId-${String(Math.min(index, count - 1)).padStart(12, '0')}`;
}

describe('the Kinesis stand-in', () => {
  it('creates a stream of even hash ranges and puts each record in the shard its key hashes to', async () => {
    await aws.kinesis.send(new CreateStreamCommand({ StreamName: 'deliveries', ShardCount: 3 }));
    await waitUntilStreamExists({ client: aws.kinesis, maxWaitTime: 20 }, { StreamName: 'deliveries' });
    const { StreamDescription } = await aws.kinesis.send(new DescribeStreamCommand({ StreamName: 'deliveries' }));
    expect(StreamDescription).toMatchObject({
      StreamStatus: 'ACTIVE',
      StreamARN: 'arn:aws:kinesis:us-east-1:000000000000:stream/deliveries',
      RetentionPeriodHours: 24,
    });
    const shards = StreamDescription!.Shards!;
    expect(shards.map((s) => s.ShardId)).toEqual([
      'shardId-000000000000',
      'shardId-000000000001',
      'shardId-000000000002',
    ]);
    expect(shards[0]!.HashKeyRange!.StartingHashKey).toBe('0');
    expect(shards[2]!.HashKeyRange!.EndingHashKey).toBe(String(2n ** 128n - 1n));
    expect(BigInt(shards[1]!.HashKeyRange!.StartingHashKey!)).toBe(
      BigInt(shards[0]!.HashKeyRange!.EndingHashKey!) + 1n,
    );

    const keys = ['chan-a', 'chan-b', 'chan-c', 'chan-d', 'chan-e', 'chan-f'];
    const single = await aws.kinesis.send(
      new PutRecordCommand({ StreamName: 'deliveries', PartitionKey: keys[0], Data: Buffer.from('first') }),
    );
    expect(single.ShardId).toBe(expectedShard(keys[0]!, 3));
    expect(single.SequenceNumber).toMatch(/^\d{56}$/);
    const batch = await aws.kinesis.send(
      new PutRecordsCommand({
        StreamARN: StreamDescription!.StreamARN,
        Records: keys.map((k, i) => ({ PartitionKey: k, Data: Buffer.from(`event-${i}`) })),
      }),
    );
    expect(batch.FailedRecordCount).toBe(0);
    expect(batch.Records!.map((r) => r.ShardId)).toEqual(keys.map((k) => expectedShard(k, 3)));

    const listed = await aws.kinesis.send(new ListShardsCommand({ StreamName: 'deliveries', MaxResults: 2 }));
    expect(listed.Shards).toHaveLength(2);
    const rest = await aws.kinesis.send(new ListShardsCommand({ NextToken: listed.NextToken }));
    expect(rest.Shards!.map((s) => s.ShardId)).toEqual(['shardId-000000000002']);
    expect(await streamRecords(aws.info, 'deliveries')).toHaveLength(7);
  });

  it('reads a shard in order with TRIM_HORIZON, AFTER_SEQUENCE_NUMBER and LATEST iterators', async () => {
    await aws.kinesis.send(new CreateStreamCommand({ StreamName: 'ordered', ShardCount: 1 }));
    const put = [];
    for (const n of [1, 2, 3])
      put.push(
        await aws.kinesis.send(
          new PutRecordCommand({ StreamName: 'ordered', PartitionKey: 'k', Data: Buffer.from(`m${n}`) }),
        ),
      );
    const iterator = async (input: Partial<ConstructorParameters<typeof GetShardIteratorCommand>[0]>) =>
      (
        await aws.kinesis.send(
          new GetShardIteratorCommand({
            StreamName: 'ordered',
            ShardId: 'shardId-000000000000',
            ShardIteratorType: 'TRIM_HORIZON',
            ...input,
          }),
        )
      ).ShardIterator!;

    const first = await aws.kinesis.send(new GetRecordsCommand({ ShardIterator: await iterator({}), Limit: 2 }));
    expect(first.Records!.map((r) => text(r.Data))).toEqual(['m1', 'm2']);
    expect(first.Records![0]!.PartitionKey).toBe('k');
    expect(first.Records![0]!.ApproximateArrivalTimestamp).toBeInstanceOf(Date);
    expect(first.MillisBehindLatest).toBeGreaterThanOrEqual(0);
    const second = await aws.kinesis.send(new GetRecordsCommand({ ShardIterator: first.NextShardIterator }));
    expect(second.Records!.map((r) => text(r.Data))).toEqual(['m3']);
    expect(second.MillisBehindLatest).toBe(0);

    const after = await iterator({
      ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
      StartingSequenceNumber: put[0]!.SequenceNumber,
    });
    expect(
      (await aws.kinesis.send(new GetRecordsCommand({ ShardIterator: after }))).Records!.map((r) => text(r.Data)),
    ).toEqual(['m2', 'm3']);
    const latest = await iterator({ ShardIteratorType: 'LATEST' });
    expect((await aws.kinesis.send(new GetRecordsCommand({ ShardIterator: latest }))).Records).toEqual([]);
    await aws.kinesis.send(new PutRecordCommand({ StreamName: 'ordered', PartitionKey: 'k', Data: Buffer.from('m4') }));
    expect(
      (await aws.kinesis.send(new GetRecordsCommand({ ShardIterator: latest }))).Records!.map((r) => text(r.Data)),
    ).toEqual(['m4']);
  });

  it('answers with the exceptions the SDK names: unknown stream, existing stream, bad iterator, bad key', async () => {
    const unknown = await aws.kinesis
      .send(new PutRecordCommand({ StreamName: 'missing', PartitionKey: 'k', Data: Buffer.from('x') }))
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ResourceNotFoundException);
    expect((unknown as Error).message).toBe('Stream missing under account 000000000000 not found.');
    const byArn = await aws.kinesis
      .send(new DescribeStreamSummaryCommand({ StreamARN: 'arn:aws:kinesis:us-east-1:000000000000:stream/missing' }))
      .catch((e: unknown) => e);
    expect(byArn).toBeInstanceOf(ResourceNotFoundException);

    await aws.kinesis.send(new CreateStreamCommand({ StreamName: 'twice', ShardCount: 1 }));
    const again = await aws.kinesis
      .send(new CreateStreamCommand({ StreamName: 'twice', ShardCount: 1 }))
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ResourceInUseException);

    const forged = await aws.kinesis
      .send(new GetRecordsCommand({ ShardIterator: 'bm90LWFuLWl0ZXJhdG9y' }))
      .catch((e: unknown) => e);
    expect(forged).toBeInstanceOf(InvalidArgumentException);
    const stale = Buffer.from(JSON.stringify(['twice', 0, 0, Date.now() - 301_000])).toString('base64');
    const expired = await aws.kinesis.send(new GetRecordsCommand({ ShardIterator: stale })).catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(ExpiredIteratorException);

    const longKey = await aws.kinesis
      .send(new PutRecordCommand({ StreamName: 'twice', PartitionKey: 'k'.repeat(257), Data: Buffer.from('x') }))
      .catch((e: unknown) => e);
    expect((longKey as Error).name).toBe('ValidationException');
  });

  it('keeps streams and their records across a restart', { timeout: 90_000 }, async () => {
    const own = await startStandIns();
    await own.kinesis.send(new CreateStreamCommand({ StreamName: 'kept', ShardCount: 2 }));
    const put = await own.kinesis.send(
      new PutRecordCommand({ StreamName: 'kept', PartitionKey: 'p', Data: Buffer.from('before') }),
    );
    await own.stop(true);
    const again = await startStandIns({}, own.dir);
    try {
      const it = await again.kinesis.send(
        new GetShardIteratorCommand({
          StreamName: 'kept',
          ShardId: put.ShardId,
          ShardIteratorType: 'AT_SEQUENCE_NUMBER',
          StartingSequenceNumber: put.SequenceNumber,
        }),
      );
      const read = await again.kinesis.send(new GetRecordsCommand({ ShardIterator: it.ShardIterator }));
      expect(read.Records!.map((r) => text(r.Data))).toEqual(['before']);
      const next = await again.kinesis.send(
        new PutRecordCommand({ StreamName: 'kept', PartitionKey: 'p', Data: Buffer.from('after') }),
      );
      expect(next.SequenceNumber! > put.SequenceNumber!).toBe(true);
    } finally {
      await again.stop();
    }
  });
});
