import type { DatabaseSync } from 'node:sqlite';
import type { buildApp } from 'fauxqs';

/** What a topic keeps for a test to read: its latest messages. */
const RECEIVED_KEPT_PER_TOPIC = 1000;

/** One message a topic received, as `GET /_local/received` lists it (with the caller's key and when). */
export interface Published {
  topicArn: string;
  messageId: string;
  message: string;
  subject?: string;
  messageAttributes: Record<string, { DataType: string; StringValue?: string; BinaryValue?: string }>;
  messageGroupId?: string;
  messageDeduplicationId?: string;
}

/**
 * What each SNS topic received, for a test to read at `GET /_local/received?topicArn=` on the SNS endpoint: SNS
 * itself is fauxqs's (topics, FIFO topics, Publish / PublishBatch, SQS subscriptions raw or in the JSON envelope,
 * filter policies, all persisted), and SNS has no API to read a topic. Recorded at the wire, from each successful
 * Publish and PublishBatch call and the message ids fauxqs answered, with the caller's access key.
 */
export function recordTopicMessages(app: ReturnType<typeof buildApp>, database: () => Promise<DatabaseSync>): void {
  let ready: Promise<DatabaseSync> | undefined;
  const db = () =>
    (ready ??= database().then((d) => {
      d.exec(`CREATE TABLE IF NOT EXISTS sns_received (seq INTEGER PRIMARY KEY AUTOINCREMENT, topic_arn TEXT NOT NULL,
        published TEXT NOT NULL, caller TEXT NOT NULL, at INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS sns_received_topic ON sns_received (topic_arn, seq);`);
      return d;
    }));

  app.addHook('onSend', async (request, reply, payload) => {
    const body = request.body as Record<string, string> | undefined;
    const action = body?.Action;
    if (request.method !== 'POST' || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    if (action !== 'Publish' && action !== 'PublishBatch') return payload;
    const published = action === 'Publish' ? [single(body!, payload)] : batch(body!, payload);
    const caller = /Credential=([^/,\s]+)/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const store = await db();
    const insert = store.prepare('INSERT INTO sns_received (topic_arn, published, caller, at) VALUES (?, ?, ?, ?)');
    const now = Date.now();
    for (const p of published.filter((p): p is Published => p !== undefined))
      insert.run(p.topicArn, JSON.stringify(p), caller, now);
    const topic = body!.TopicArn!;
    store
      .prepare(
        `DELETE FROM sns_received WHERE topic_arn = ? AND seq <= (SELECT seq FROM sns_received WHERE topic_arn = ? ORDER BY seq DESC LIMIT 1 OFFSET ${RECEIVED_KEPT_PER_TOPIC})`,
      )
      .run(topic, topic);
    return payload;
  });

  app.get('/_local/received', async (request, reply) => {
    const topicArn = (request.query as { topicArn?: string }).topicArn;
    if (!topicArn) return reply.status(400).send({ message: 'topicArn is required' });
    const rows = (await db())
      .prepare('SELECT published, caller, at FROM sns_received WHERE topic_arn = ? ORDER BY seq')
      .all(topicArn) as { published: string; caller: string; at: number }[];
    return {
      messages: rows.map((r) => ({
        ...(JSON.parse(r.published) as Published),
        callerAccessKeyId: r.caller,
        receivedAt: new Date(r.at).toISOString(),
      })),
    };
  });
}

function single(body: Record<string, string>, xml: string): Published | undefined {
  const messageId = /<MessageId>([^<]+)<\/MessageId>/.exec(xml)?.[1];
  return messageId ? entry(body, '', body.TopicArn!, messageId) : undefined;
}

function batch(body: Record<string, string>, xml: string): (Published | undefined)[] {
  const ids = new Map(
    [...xml.matchAll(/<member><Id>([^<]+)<\/Id><MessageId>([^<]+)<\/MessageId>/g)].map((m) => [m[1]!, m[2]!]),
  );
  const published: (Published | undefined)[] = [];
  for (let n = 1; body[`PublishBatchRequestEntries.member.${n}.Id`] !== undefined; n++) {
    const prefix = `PublishBatchRequestEntries.member.${n}.`;
    const messageId = ids.get(body[`${prefix}Id`]!);
    published.push(messageId ? entry(body, prefix, body.TopicArn!, messageId) : undefined);
  }
  return published;
}

/** One message's fields as the query protocol flattens them (`MessageAttributes.entry.1.Name`…). */
function entry(body: Record<string, string>, prefix: string, topicArn: string, messageId: string): Published {
  const messageAttributes: Published['messageAttributes'] = {};
  for (let n = 1; body[`${prefix}MessageAttributes.entry.${n}.Name`] !== undefined; n++) {
    const at = `${prefix}MessageAttributes.entry.${n}.`;
    messageAttributes[body[`${at}Name`]!] = {
      DataType: body[`${at}Value.DataType`] ?? 'String',
      ...(body[`${at}Value.StringValue`] !== undefined ? { StringValue: body[`${at}Value.StringValue`] } : {}),
      ...(body[`${at}Value.BinaryValue`] !== undefined ? { BinaryValue: body[`${at}Value.BinaryValue`] } : {}),
    };
  }
  const optional = (name: string) => (body[`${prefix}${name}`] !== undefined ? body[`${prefix}${name}`] : undefined);
  return {
    topicArn,
    messageId,
    message: body[`${prefix}Message`] ?? '',
    ...(optional('Subject') !== undefined ? { subject: optional('Subject') } : {}),
    messageAttributes,
    ...(optional('MessageGroupId') !== undefined ? { messageGroupId: optional('MessageGroupId') } : {}),
    ...(optional('MessageDeduplicationId') !== undefined
      ? { messageDeduplicationId: optional('MessageDeduplicationId') }
      : {}),
  };
}
