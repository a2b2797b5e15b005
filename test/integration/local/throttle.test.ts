import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDynamoWithTable, startFauxqsWithQueuesAndBuckets } from '#local/emulators.ts';
import { updateEffect } from '#local/throttle.ts';
import { parseThrottles } from '#local/throttle-rules.ts';
import { queues } from '#shared/contract/queues.ts';
import { throttleFile } from '#test/support/throttles.ts';

/**
 * The throttle failpoint (local/throttle.ts) against the stand-ins themselves: what a rule throttles, what it leaves
 * alone, and that the answer is AWS's own (the SDK names the error as it would on AWS).
 */
const throttles = throttleFile();
let dynamo: Awaited<ReturnType<typeof startDynamoWithTable>>;
let doc: DynamoDBDocumentClient;
const TableName = 'switchboard-main';
beforeAll(async () => {
  process.env.THROTTLES_FILE = throttles.env.THROTTLES_FILE;
  dynamo = await startDynamoWithTable();
  // One attempt: the SDK's own retries of a throttle wait up to seconds, and are not what these tests look at.
  doc = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: dynamo.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    }),
  );
});
afterEach(() => throttles.clear());
afterAll(async () => {
  delete process.env.THROTTLES_FILE;
  doc?.destroy();
  await dynamo?.close();
  throttles.remove();
});

const errorName = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: Error) => e.name,
  );
const THROTTLED = 'ProvisionedThroughputExceededException';

describe('table rules', () => {
  it('throttles calls on matching partition keys and leaves the others alone', async () => {
    throttles.arm('table:RL#*');
    expect(await errorName(doc.send(new PutCommand({ TableName, Item: { pk: 'RL#a', sk: 'RL' } })))).toBe(THROTTLED);
    expect(await errorName(doc.send(new GetCommand({ TableName, Key: { pk: 'RL#a', sk: 'RL' } })))).toBe(THROTTLED);
    expect(await errorName(doc.send(new PutCommand({ TableName, Item: { pk: 'PRJ#a', sk: 'RL' } })))).toBe('ok');
    throttles.clear();
    expect(await errorName(doc.send(new PutCommand({ TableName, Item: { pk: 'RL#a', sk: 'RL' } })))).toBe('ok');
  });

  it('`pk/sk` narrows a table rule to matching sort keys', async () => {
    throttles.arm('table:PRJ#n/MSG#*');
    expect(await errorName(doc.send(new PutCommand({ TableName, Item: { pk: 'PRJ#n', sk: 'MSG#1' } })))).toBe(
      THROTTLED,
    );
    expect(await errorName(doc.send(new PutCommand({ TableName, Item: { pk: 'PRJ#n', sk: 'CH#1' } })))).toBe('ok');
  });

  it('`:write` throttles writes only', async () => {
    throttles.arm('table:TOKEN#*:write');
    await expect(
      doc.send(
        new UpdateCommand({
          TableName,
          Key: { pk: 'TOKEN#x', sk: 'T' },
          UpdateExpression: 'SET a = :a',
          ExpressionAttributeValues: { ':a': 1 },
        }),
      ),
    ).rejects.toThrow(/throughput/);
    expect(await errorName(doc.send(new GetCommand({ TableName, Key: { pk: 'TOKEN#x', sk: 'T' } })))).toBe('ok');
  });

  it('the SDK retries a throttle as on AWS, then gives up with the same error', async () => {
    throttles.arm('table:RETRIED');
    const retrying = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        region: 'us-east-1',
        endpoint: dynamo.endpoint,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        maxAttempts: 2,
      }),
    );
    try {
      const error = await retrying.send(new GetCommand({ TableName, Key: { pk: 'RETRIED', sk: 'x' } })).catch((e) => e);
      expect(error.name).toBe(THROTTLED);
      expect(error.$metadata.attempts).toBe(2);
    } finally {
      retrying.destroy();
    }
  });
});

describe('index rules', () => {
  it('a write that puts an item into, changes it in, or takes it out of a throttled index partition is throttled', async () => {
    await doc.send(
      new PutCommand({ TableName, Item: { pk: 'PRJ#i', sk: 'CREDITS#1', gsi1pk: 'CREDIT_SWEEP', gsi1sk: '1' } }),
    );
    await doc.send(new PutCommand({ TableName, Item: { pk: 'PRJ#i', sk: 'PLAIN' } }));
    throttles.arm('gsi1:CREDIT_SWEEP*');
    // Joins the index under the throttled key.
    const join = new UpdateCommand({
      TableName,
      Key: { pk: 'PRJ#i', sk: 'PLAIN' },
      UpdateExpression: 'SET #p = :p, #s = if_not_exists(#s, :s)',
      ExpressionAttributeNames: { '#p': 'gsi1pk', '#s': 'gsi1sk' },
      ExpressionAttributeValues: { ':p': 'CREDIT_SWEEP#3', ':s': '2' },
    });
    expect(await errorName(doc.send(join))).toBe(THROTTLED);
    // Already in it: any change rewrites the index's copy (projection ALL).
    const change = new UpdateCommand({
      TableName,
      Key: { pk: 'PRJ#i', sk: 'CREDITS#1' },
      UpdateExpression: 'SET n = :n',
      ExpressionAttributeValues: { ':n': 1 },
    });
    expect(await errorName(doc.send(change))).toBe(THROTTLED);
    // Leaves it.
    const leave = new UpdateCommand({
      TableName,
      Key: { pk: 'PRJ#i', sk: 'CREDITS#1' },
      UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
    });
    expect(await errorName(doc.send(leave))).toBe(THROTTLED);
    // Not in it, not joining it.
    const other = new UpdateCommand({
      TableName,
      Key: { pk: 'PRJ#i', sk: 'PLAIN' },
      UpdateExpression: 'SET n = :n',
      ExpressionAttributeValues: { ':n': 1 },
    });
    expect(await errorName(doc.send(other))).toBe('ok');
    // Reads of the table are not the index's.
    expect(await errorName(doc.send(new GetCommand({ TableName, Key: { pk: 'PRJ#i', sk: 'CREDITS#1' } })))).toBe('ok');
    throttles.clear();
    expect(await errorName(doc.send(join))).toBe('ok');
  });

  it('a query of the index under a throttled key is throttled; under another key it is not', async () => {
    throttles.arm('gsi1:CREDIT_SWEEP*');
    const query = (pk: string) =>
      doc.send(
        new QueryCommand({
          TableName,
          IndexName: 'gsi1',
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': 'gsi1pk' },
          ExpressionAttributeValues: { ':pk': pk },
        }),
      );
    expect(await errorName(query('CREDIT_SWEEP'))).toBe(THROTTLED);
    expect(await errorName(query('PROJECTS'))).toBe('ok');
  });
});

describe('batches', () => {
  it('a batch write gets its throttled items back unprocessed and writes the rest', async () => {
    throttles.arm('table:HOT#*');
    const out = await doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [TableName]: [
            { PutRequest: { Item: { pk: 'HOT#1', sk: 'x' } } },
            { PutRequest: { Item: { pk: 'COLD#1', sk: 'x' } } },
            { DeleteRequest: { Key: { pk: 'HOT#2', sk: 'x' } } },
          ],
        },
      }),
    );
    expect(out.UnprocessedItems?.[TableName]).toEqual([
      { PutRequest: { Item: { pk: 'HOT#1', sk: 'x' } } },
      { DeleteRequest: { Key: { pk: 'HOT#2', sk: 'x' } } },
    ]);
    throttles.clear();
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'COLD#1', sk: 'x' } }))).Item).toBeDefined();
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'HOT#1', sk: 'x' } }))).Item).toBeUndefined();
  });

  it('a batch whose every item is throttled fails with the exception', async () => {
    throttles.arm('table:HOT#*');
    const all = new BatchWriteCommand({
      RequestItems: { [TableName]: [{ PutRequest: { Item: { pk: 'HOT#3', sk: 'x' } } }] },
    });
    expect(await errorName(doc.send(all))).toBe(THROTTLED);
  });

  it('a batch get gets its throttled keys back unprocessed', async () => {
    await doc.send(new PutCommand({ TableName, Item: { pk: 'COLD#2', sk: 'x', v: 1 } }));
    throttles.arm('table:HOT#*');
    const out = await doc.send(
      new BatchGetCommand({
        RequestItems: {
          [TableName]: {
            Keys: [
              { pk: 'HOT#4', sk: 'x' },
              { pk: 'COLD#2', sk: 'x' },
            ],
            ConsistentRead: true,
          },
        },
      }),
    );
    expect(out.Responses?.[TableName]).toEqual([{ pk: 'COLD#2', sk: 'x', v: 1 }]);
    expect(out.UnprocessedKeys?.[TableName]?.Keys).toEqual([{ pk: 'HOT#4', sk: 'x' }]);
    expect(out.UnprocessedKeys?.[TableName]?.ConsistentRead).toBe(true);
  });
});

describe('queues', () => {
  it('a send to a throttled queue is refused with RequestThrottled; other queues take theirs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-throttle-sqs-'));
    const aws = await startFauxqsWithQueuesAndBuckets(dir);
    const sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: aws.awsEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    try {
      throttles.arm(`queue:${queues.deliveries.localName}`);
      const send = (url: string) => errorName(sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{}' })));
      expect(await send(aws.queueUrls.deliveries)).toBe('RequestThrottled');
      expect(await send(aws.queueUrls.ingest)).toBe('ok');
      throttles.clear();
      expect(await send(aws.queueUrls.deliveries)).toBe('ok');
    } finally {
      sqs.destroy();
      await aws.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what dynalite leaves out', () => {
  it('a refused conditional write that asks for ALL_OLD carries the item as it was, as DynamoDB answers', async () => {
    await doc.send(new PutCommand({ TableName, Item: { pk: 'OLD#1', sk: 'x', n: 7 } }));
    const refused = await doc
      .send(
        new UpdateCommand({
          TableName,
          Key: { pk: 'OLD#1', sk: 'x' },
          UpdateExpression: 'SET n = :n',
          ConditionExpression: 'n = :other',
          ExpressionAttributeValues: { ':n': 8, ':other': 1 },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      )
      .catch((e) => e);
    expect(refused.name).toBe('ConditionalCheckFailedException');
    expect(refused.Item).toEqual({ pk: { S: 'OLD#1' }, sk: { S: 'x' }, n: { N: '7' } });
    const without = await doc
      .send(
        new UpdateCommand({
          TableName,
          Key: { pk: 'OLD#1', sk: 'x' },
          UpdateExpression: 'SET n = :n',
          ConditionExpression: 'n = :other',
          ExpressionAttributeValues: { ':n': 8, ':other': 1 },
        }),
      )
      .catch((e) => e);
    expect(without.name).toBe('ConditionalCheckFailedException');
    expect(without.Item).toBeUndefined();
  });
});

describe('rules', () => {
  it('parses where, glob and the read/write narrowing; a malformed rule is an error, not a silent no-op', () => {
    const [rule] = parseThrottles('gsi1:OUTBOX#*:write');
    expect(rule?.where).toBe('gsi1');
    expect(rule?.ops).toBe('write');
    expect(rule?.pattern.test('OUTBOX#3')).toBe(true);
    expect(rule?.pattern.test('XOUTBOX#3')).toBe(false);
    expect(() => parseThrottles('nowhere:x')).toThrow(/where/);
    expect(() => parseThrottles('table')).toThrow(/expected/);
  });

  it("reads an update's effect on top-level attributes, commas inside functions included", () => {
    const effect = updateEffect({
      UpdateExpression: 'SET a = if_not_exists(a, :z) + :one, #b = :b REMOVE c, d.e ADD f :one',
      ExpressionAttributeNames: { '#b': 'bee' },
      ExpressionAttributeValues: { ':b': { S: 'B' }, ':z': { N: '0' }, ':one': { N: '1' } },
    });
    expect([...effect.touched].sort()).toEqual(['a', 'bee', 'c', 'd', 'f']);
    expect(effect.set.get('bee')).toEqual({ S: 'B' });
    expect(effect.set.get('a')).toBeUndefined();
    expect([...effect.removed].sort()).toEqual(['c', 'd']);
  });
});
