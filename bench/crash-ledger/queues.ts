/**
 * What the crash ledger reads beside the webhooks: the SQS destination's queue (what it delivered), the service's own
 * queues and the events its table still holds unpublished (work left).
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { deadLetterName, queues } from '#shared/contract/queues.ts';
import { mainTable } from '#shared/contract/table.ts';
import { DynamoUnpublishedEvents } from '#shared/events/index.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import type { LocalAws } from '#local/emulators.ts';
import type { ReceivedDelivery } from '#test/e2e/webhooks-support.ts';
import { localDocumentClient } from '#test/support/dynamo.ts';
import { queueCounts } from '../lib/volume-state.ts';

/** An SQS client on the stand-in the service runs now: each restart gives it a new port, queues keep their names. */
const sqsAt = (info: LocalAws) =>
  new SQSClient({
    region: info.region,
    endpoint: info.endpoints.sqs,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    useQueueUrlAsEndpoint: false,
  });

/**
 * Moves what the SQS destination's queue holds into `into`, as deliveries (read at the drain; the queue keeps them
 * until then).
 */
export async function readDestinationQueue(
  localAws: () => Promise<LocalAws>,
  queueUrl: string,
  into: ReceivedDelivery[],
): Promise<void> {
  const sqs = sqsAt(await localAws());
  try {
    for (;;) {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['SentTimestamp'],
        }),
      );
      const messages = out.Messages ?? [];
      if (!messages.length) return;
      for (const m of messages) {
        const arrivedAt = Number(m.Attributes?.SentTimestamp ?? Date.now());
        into.push({
          at: arrivedAt,
          arrivedAt,
          headers: { 'webhook-id': m.MessageAttributes?.['webhook-id']?.StringValue ?? '' },
          body: m.Body!,
          json: JSON.parse(m.Body!),
        });
      }
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
  } finally {
    sqs.destroy();
  }
}

/**
 * What the service's own queues still hold (visible, in flight or delayed), work queues and dead-letter queues
 * apart: the drain waits while work is left, since a restarted service on a loaded machine may take longer than
 * `drainSeconds` to reach a job (an outbound job postponed until a dead worker's claim is stale, a backlog of events).
 */
export async function serviceQueues(
  localAws: () => Promise<LocalAws>,
): Promise<{ work: number; dead: Record<string, number> }> {
  const sqs = sqsAt(await localAws());
  try {
    const held = async (name: string) => {
      const c = await queueCounts(sqs, name);
      return c.visible + c.inFlight + c.delayed;
    };
    let work = 0;
    const dead: Record<string, number> = {};
    for (const q of Object.values(queues)) {
      work += await held(q.localName);
      const letters = await held(deadLetterName(q));
      if (letters) dead[deadLetterName(q)] = letters;
    }
    return { work, dead };
  } finally {
    sqs.destroy();
  }
}

/** The service's table as its adapters see it, on the stand-in the service runs now. */
export async function tableAt(localAws: () => Promise<LocalAws>): Promise<DynamoTable> {
  const info = await localAws();
  return { client: localDocumentClient(info.endpoints.dynamodb), tableName: mainTable.localName };
}

/**
 * Events the service's table still holds unpublished whose mark was written in the last `withinMs`: a kill cut off
 * their publication after their change was written. The sweep publishes such an event once its mark is
 * EVENT_SWEEP_AFTER_SECONDS old, and until then it is on no queue, so the drain counts it as work left. An older mark
 * does not count: the sweep should have published it by then, and the event is reported lost. Read as the sweep reads
 * them (its outbox shards, `DynamoUnpublishedEvents`).
 */
export async function recentMarks(localAws: () => Promise<LocalAws>, withinMs: number): Promise<number> {
  const table = await tableAt(localAws);
  const outbox = new DynamoUnpublishedEvents(table);
  const now = Date.now();
  let count = 0;
  try {
    for (const shard of outbox.shards) {
      let after: Record<string, unknown> | undefined;
      do {
        const page = await outbox.stale(shard, now, 100, after);
        for (const item of page.items) if (item.writtenAt !== undefined && item.writtenAt > now - withinMs) count++;
        after = page.next;
      } while (after);
    }
    return count;
  } finally {
    table.client.destroy();
  }
}
