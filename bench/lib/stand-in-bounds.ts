import { Agent, request } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startReceiver } from '#test/e2e/webhooks-support.ts';

/**
 * The bounds the webhooks benchmark reports beside its figures, measured in the same round on this machine: dynalite
 * conditional writes/s, fauxqs messages/s end to end (send batch, receive, delete batch), loopback POSTs/s.
 */

/** Each bound is measured for half of `seconds`. */
export async function dynaliteAnchor(endpoint: string, tableName: string, seconds: number): Promise<number> {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'l', secretAccessKey: 'l' } }),
  );
  const write = (i: number) =>
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: `BENCH#${i % 64}`, sk: 'x' },
        UpdateExpression: 'SET attempts = list_append(if_not_exists(attempts, :e), :a)',
        ConditionExpression: 'attribute_not_exists(#s) OR #s <> :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':e': [], ':a': [{ at: 'x', statusCode: 200, durationMs: 1 }], ':s': 'succeeded' },
      }),
    );
  const rate = await closedLoop(32, seconds / 2, async (i) => {
    await write(i);
  });
  client.destroy();
  return rate;
}

export async function fauxqsAnchor(endpoint: string, seconds: number): Promise<number> {
  const sqs = new SQSClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: 'bench-anchor' }))).QueueUrl!;
  let consumed = 0;
  const end = Date.now() + (seconds / 2) * 1000;
  const started = Date.now();
  const producers = Array.from({ length: 2 }, async () => {
    while (Date.now() < end) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: Array.from({ length: 10 }, (_, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify({ n: i, pad: 'x'.repeat(500) }),
          })),
        }),
      );
    }
  });
  const consumers = Array.from({ length: 4 }, async () => {
    while (Date.now() < end) {
      const out = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      const msgs = out.Messages ?? [];
      if (!msgs.length) continue;
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: msgs.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
      consumed += msgs.length;
    }
  });
  await Promise.all([...producers, ...consumers]);
  sqs.destroy();
  return consumed / ((Date.now() - started) / 1000);
}

export async function loopbackAnchor(seconds: number): Promise<number> {
  const receiver = await startReceiver();
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const body = JSON.stringify({ id: 'evt_x', type: 'message.sent', data: { pad: 'x'.repeat(200) } });
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        receiver.url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const rate = await closedLoop(32, seconds / 2, post);
  agent.destroy();
  await receiver.close();
  return rate;
}

/** Runs `fn` from `concurrency` loops for `durationS`; calls per second. */
export async function closedLoop(
  concurrency: number,
  durationS: number,
  fn: (i: number) => Promise<void>,
): Promise<number> {
  let n = 0;
  const end = performance.now() + durationS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) await fn(n++);
    }),
  );
  return n / ((performance.now() - started) / 1000);
}
