/**
 * The send's DynamoDB work, part by part, in one process against dynalite on disk (as `npm start` runs it): CPU of
 * this process (client: SDK marshalling, signing, HTTP; server: dynalite's parsing, validation, LevelDB) per
 * operation, for each variant of the read before the checks and of the record's write, so what the conversation
 * checks (suppression and window) and the record's conversation fields cost is measured without the rest of the service.
 * Variants run interleaved in rounds; medians of the rounds' CPU per operation.
 * Run: npx tsx bench/send-parts.ts [--ops 1000] [--rounds 5] [--only <words of a variant's name>]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startEmulators } from '#local/emulators.ts';
import { keys } from '#shared/contract/keys.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { readItem } from '#shared/kernel/aws/dynamo-table.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import {
  type Channel,
  channelFromItem,
  conversationIdOf,
  DynamoChannelStore,
  DynamoConversationStore,
  DynamoMessageLog,
  DynamoMessageStatusStore,
  type MessageRecord,
} from '#shared/messaging/index.ts';
import type { OutboxMark } from '#shared/events/index.ts';
import { newId } from '#shared/kernel/ids.ts';
import { machine, median } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    only: { type: 'string' },
  },
});
const ops = Number(values.ops);
const rounds = Number(values.rounds);

const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-send-parts-'));
const emulators = await startEmulators(dataDir);
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    region: emulators.region,
    endpoint: emulators.dynamoEndpoint,
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  }),
  { marshallOptions: { removeUndefinedValues: true } },
);
const table: DynamoTable = { client, tableName: emulators.tableName };
const secrets = createSecretBox(randomBytes(32).toString('base64'));
const channels = new DynamoChannelStore(table, secrets);
const conversations = new DynamoConversationStore(table, secrets);
const log = new DynamoMessageLog(table);
const statuses = new DynamoMessageStatusStore(table);

const projectId = newId('prj');
const channel = (type: 'sms' | 'whatsapp', address: string): Channel => ({
  channelId: newId('ch'),
  projectId,
  companyId: 1042,
  type,
  name: `bench ${type}`,
  address,
  provider: { kind: 'sandbox' },
  credits: 1_000_000_000,
  createdAt: new Date().toISOString(),
});
const sms = channel('sms', '+5511999990000');
const whatsapp = channel('whatsapp', '5511999990001');
await channels.create(sms);
await channels.create(whatsapp);
await conversations.touchInbound(whatsapp.channelId, '5511988887777', new Date().toISOString());

/** The send's event mark: the event message as JSON (about the size a send's `message.sent` is). */
const mark = (): OutboxMark => ({
  eventId: newId('evt'),
  at: Date.now(),
  message: JSON.stringify({ pad: 'x'.repeat(1000) }),
  orderGroup: `${projectId}/channel:${sms.channelId}`,
});

/** A send's record with its conversation fields, or (`withConversation: false`) as it was before. */
function record(withConversation: boolean): MessageRecord {
  const messageId = newId('msg');
  const full: MessageRecord = {
    messageId,
    projectId,
    channelId: sms.channelId,
    channelType: 'sms',
    integrationId: 'int_0123456789abcdefghij',
    provider: 'sandbox',
    to: '+5511988887777',
    payload: { to: '+5511988887777', body: 'Your code is 123456', metadata: { orderId: 42 } },
    status: 'sent',
    providerMessageIds: [`sandbox-${messageId}`],
    sentAt: new Date().toISOString(),
    conversationId: conversationIdOf(sms.channelId, '+5511988887777'),
    contact: '+5511988887777',
    text: 'Your code is 123456',
  };
  if (withConversation) return full;
  const { conversationId: _c, contact: _k, text: _t, ...old } = full;
  return old as MessageRecord;
}

const variants: Record<string, () => Promise<unknown>> = {
  'read: GetItem of the channel (before conversations)': async () =>
    channelFromItem((await readItem(table, keys.channel(projectId, sms.channelId)))!, secrets),
  'read: sms lookupForSend (channel + suppression)': () =>
    conversations.lookupForSend(projectId, sms.channelId, {
      windowContacts: [],
      suppressionContacts: ['+5511988887777'],
      threadIds: [],
    }),
  'read: whatsapp lookupForSend (channel + window + suppression)': () =>
    conversations.lookupForSend(projectId, whatsapp.channelId, {
      windowContacts: ['5511988887777'],
      suppressionContacts: ['5511988887777'],
      threadIds: [],
    }),
  'read: sms BatchGetItem with a projection (channel + suppression)': () =>
    client.send(
      new BatchGetCommand({
        RequestItems: {
          [table.tableName]: {
            Keys: [
              keys.channel(projectId, sms.channelId),
              keys.suppression(projectId, sms.channelId, '+5511988887777'),
            ],
            ConsistentRead: true,
            ProjectionExpression: '#pk, #sk, #channel, #sealed, #credits, #state, #contact, #reason, #at, #keyword',
            ExpressionAttributeNames: {
              '#pk': 'pk',
              '#sk': 'sk',
              '#channel': 'channel',
              '#sealed': 'providerSealed',
              '#credits': 'credits',
              '#state': 'state',
              '#contact': 'contact',
              '#reason': 'reason',
              '#at': 'at',
              '#keyword': 'keyword',
            },
          },
        },
      }),
    ),
  'write: record + clear mark, before conversations': async () => {
    const r = record(false);
    const m = mark();
    await log.record(r, m);
    await statuses.clearEvent(r.messageId, m.eventId);
  },
  'write: record + clear mark, with conversation fields': async () => {
    const r = record(true);
    const m = mark();
    await log.record(r, m);
    await statuses.clearEvent(r.messageId, m.eventId);
  },
};

// `--only <words>`: the variants whose name has them (to profile one: node --import tsx --cpu-prof bench/send-parts.ts).
if (values.only) for (const name of Object.keys(variants)) if (!name.includes(values.only)) delete variants[name];

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const results = new Map<string, number[]>();
for (const fn of Object.values(variants)) for (let i = 0; i < 200; i++) await fn(); // warm-up
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(variants);
  for (const name of round % 2 ? names.reverse() : names) {
    const fn = variants[name]!;
    const c0 = cpu();
    for (let i = 0; i < ops; i++) await fn();
    results.set(name, [...(results.get(name) ?? []), ((cpu() - c0) / ops) * 1000]);
  }
}
console.log(`\n### send parts: ${rounds} rounds × ${ops} ops (${machine()}, load ${loadavg()[0]!.toFixed(1)})`);
console.log('| variant | CPU µs/op (median of rounds) | rounds |');
console.log('|---|---|---|');
for (const [name, xs] of results)
  console.log(`| ${name} | ${median(xs).toFixed(0)} | ${xs.map((x) => x.toFixed(0)).join(', ')} |`);
client.destroy();
await emulators.stop();
rmSync(dataDir, { recursive: true, force: true });
