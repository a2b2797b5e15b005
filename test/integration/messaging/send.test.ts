import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { RecordingPublisher } from '#test/support/fakes/recording-publisher.ts';
import { DynamoMessageStatusStore } from '#shared/messaging/adapters/dynamo-message-status-store.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoChannelStore } from '#shared/messaging/adapters/dynamo-channel-store.ts';
import { DynamoConversationStore } from '#shared/messaging/adapters/dynamo-conversation-store.ts';
import { DynamoMessageLog } from '#shared/messaging/adapters/dynamo-message-log.ts';
import { DynamoTokenStore, generateToken, makeAuthenticateCustomToken } from '#shared/auth/index.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { hashToken } from '#shared/kernel/tokens.ts';
import { parseConfig } from '#shared/kernel/config.ts';
import { asHttpError } from '#shared/http/domain-errors.ts';
import { HttpError } from '#shared/http/errors.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import type { Channel } from '#shared/messaging/channel.ts';
import {
  ProviderError,
  sandboxProvider,
  type MessageProvider,
  type MessageProviders,
} from '#shared/messaging/providers.ts';
import { makeSendMessage, type SendOptions } from '#shared/messaging/send-message.ts';
import { eventMessageSchema, makeEventPublisher, SqsEventQueue } from '#shared/events/index.ts';
import { startEmulators, type Emulators } from '#local/emulators.ts';

let emulators: Emulators;
let dataDir: string;
let table: DynamoTable;
let operations: string[];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-messaging-'));
  emulators = await startEmulators(dataDir);
  const cfg = parseConfig({
    TABLE_NAME: emulators.tableName,
    DYNAMODB_ENDPOINT: emulators.dynamoEndpoint,
    SQS_ENDPOINT: emulators.awsEndpoint,
    QUEUE_URL_EVENTS: emulators.queueUrls.events,
    AWS_REGION: emulators.region,
  });
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: cfg.AWS_REGION,
      endpoint: cfg.DYNAMODB_ENDPOINT,
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  // Every DynamoDB call, by operation name: the send's budget is asserted on this list.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      operations.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countOperations' },
  );
  table = { client, tableName: cfg.TABLE_NAME };
  operations = [];
});
afterAll(async () => {
  table?.client.destroy();
  await emulators?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const secretBox = createSecretBox(randomBytes(32).toString('base64'));

async function setup(channelInput: Partial<Channel> = {}, provider: MessageProvider = sandboxProvider) {
  const channels = new DynamoChannelStore(table, secretBox);
  const tokens = new DynamoTokenStore(table);
  const projectId = `prj_${randomBytes(6).toString('hex')}`;
  const channel: Channel = {
    channelId: `ch_${randomBytes(6).toString('hex')}`,
    projectId,
    companyId: 1042,
    type: 'sms',
    name: 'Main',
    address: '+5511999990000',
    provider: { kind: 'sandbox' },
    createdAt: new Date().toISOString(),
    ...channelInput,
  };
  await channels.create(channel);
  const token = generateToken('custom');
  await tokens.put(hashToken(token), {
    kind: 'custom',
    projectId,
    integrationId: 'int_1',
    channelId: channel.channelId,
  });
  const events = new RecordingPublisher();
  const errors: string[] = [];
  const providers: MessageProviders = {
    sandbox: provider,
    smtp: provider,
    twilio: provider,
    'whatsapp-cloud': provider,
    ses: provider,
  };
  const conversations = new DynamoConversationStore(table, secretBox);
  const sendMessage = makeSendMessage({
    conversations,
    channels,
    messages: new DynamoMessageLog(table),
    statuses: new DynamoMessageStatusStore(table),
    providers,
    events,
    providerBudgetMs: 5000,
    onBackgroundError: (what) => errors.push(what),
  });
  const authenticate = makeAuthenticateCustomToken({ tokens });
  /** What the send function does per request: authenticate, then the use case. */
  const request = async (body: unknown, options?: SendOptions) => {
    const grant = await authenticate(`Bearer ${token}`);
    return sendMessage(grant!, body, options);
  };
  return { channel, channels, conversations, events, errors, request };
}

describe('send use case over DynamoDB', () => {
  it("costs exactly token, channel (with its contact's suppression), charge and record on a metered channel", async () => {
    const provider: MessageProvider = { send: async () => ({ providerMessageIds: ['SM1'] }) };
    const { request } = await setup(
      { credits: 5, provider: { kind: 'twilio', accountSid: 'AC1', authToken: 't' } },
      provider,
    );
    operations = [];
    await request({ to: '+5511988887777', body: 'hello' });
    // Token, channel (one BatchGetItem with the suppression and window items: the conversation checks add no round trip),
    // charge, the record (carrying the event's mark), and the mark cleared once the event is queued.
    expect(operations).toEqual([
      'GetItemCommand',
      'BatchGetItemCommand',
      'UpdateItemCommand',
      'BatchWriteItemCommand',
      'UpdateItemCommand',
    ]);
  });

  it("skips the charge on an unmetered channel; a sandbox's send is its outbox entry, one put more", async () => {
    const { request } = await setup();
    operations = [];
    await request({ to: '+5511988887777', body: 'hello' });
    expect(operations).toEqual([
      'GetItemCommand',
      'BatchGetItemCommand',
      'PutItemCommand',
      'BatchWriteItemCommand',
      'UpdateItemCommand',
    ]);
  });

  it('emits message.sent with the contract envelope', async () => {
    const { request, events, channel } = await setup({ credits: 1 });
    const result = await request({ to: '+5511988887777', body: 'hello', metadata: { order: 7 } });
    expect(events.events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: 'message.sent',
        timestamp: expect.any(String),
        projectId: channel.projectId,
        companyId: 1042,
        channel: { id: channel.channelId, type: 'sms', address: '+5511999990000' },
        data: expect.objectContaining({
          messageId: result.messageId,
          integrationId: 'int_1',
          status: 'sent',
          to: '+5511988887777',
          provider: 'sandbox',
          payload: { to: '+5511988887777', body: 'hello', metadata: { order: 7 } },
        }),
      },
    ]);
  });

  it('on a provider failure: 502, credit refunded, message.failed with the reason', async () => {
    const failing: MessageProvider = {
      async send() {
        throw new ProviderError('Twilio answered HTTP 500');
      },
    };
    const { request, events, channels, channel } = await setup(
      { credits: 1, provider: { kind: 'twilio', accountSid: 'AC1', authToken: 't' } },
      failing,
    );
    operations = [];
    const error = asHttpError(await request({ to: '+5511988887777', body: 'hello' }).catch((e: unknown) => e));
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(502);
    expect((error as HttpError).code).toBe('PROVIDER_ERROR');
    // token, channel, charge, refund, failed record.
    expect(operations).toEqual([
      'GetItemCommand',
      'BatchGetItemCommand',
      'UpdateItemCommand',
      'UpdateItemCommand',
      'BatchWriteItemCommand',
      'UpdateItemCommand',
    ]);
    expect((await channels.get(channel.projectId, channel.channelId))?.credits).toBe(1);
    expect(events.events.map((e) => [e.type, e.data.status, e.data.error])).toEqual([
      ['message.failed', 'failed', 'Twilio answered HTTP 500'],
    ]);
  });

  it('a paced send whose departure fails is not sent and gets its credit back', async () => {
    let calls = 0;
    const counting: MessageProvider = {
      async send() {
        calls++;
        return { providerMessageIds: ['SM1'] };
      },
    };
    const { request, events, channels, channel } = await setup(
      { credits: 1, provider: { kind: 'twilio', accountSid: 'AC1', authToken: 't' } },
      counting,
    );
    const failed = await request(
      { to: '+5511988887777', body: 'hello' },
      {
        departure: async () => {
          throw new Error('the pace store did not answer');
        },
      },
    ).catch((e: unknown) => e);
    expect(String(failed)).toContain('the pace store did not answer');
    expect(calls).toBe(0);
    expect((await channels.get(channel.projectId, channel.channelId))?.credits).toBe(1);
    expect(events.events).toEqual([]);
  });

  it('a 402 on an empty channel costs the two reads and no write', async () => {
    const { request, events } = await setup({ credits: 0 });
    operations = [];
    const error = asHttpError(await request({ to: '+5511988887777', body: 'hello' }).catch((e: unknown) => e));
    expect((error as HttpError).status).toBe(402);
    expect(operations).toEqual(['GetItemCommand', 'BatchGetItemCommand']);
    expect(events.events).toEqual([]);
  });

  it('keeps the record under the item size limit for a huge email', async () => {
    const { request, errors } = await setup({ type: 'email', address: 'a@example.com' });
    const html = `<p>${'x'.repeat(2 * 1024 * 1024)}</p>`;
    const result = await request({ to: 'b@example.com', subject: 'big', html });
    expect(result.status).toBe('sent');
    expect(errors).toEqual([]);
  });
});

describe('events queue publisher', () => {
  it('puts the event on the events queue in the fan-out format, envelope as the body', async () => {
    const cfg = parseConfig({
      TABLE_NAME: emulators.tableName,
      SQS_ENDPOINT: emulators.awsEndpoint,
      QUEUE_URL_EVENTS: emulators.queueUrls.events,
      AWS_REGION: emulators.region,
    });
    const publisher = makeEventPublisher({
      queue: new SqsEventQueue(sqsClient(cfg), cfg.QUEUE_URL_EVENTS!),
      payloads: { put: async () => {}, get: async () => '' },
    });
    const envelope = await publisher.publish({
      type: 'message.sent',
      projectId: 'prj_1',
      companyId: 1042,
      channel: { id: 'ch_1', type: 'sms', address: '+5511999990000' },
      data: { messageId: 'msg_1' },
    });
    expect(envelope.id).toMatch(/^evt_/);
    const sqs = sqsClient(cfg);
    const out = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: emulators.queueUrls.events, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    expect(out.Messages).toHaveLength(1);
    const message = eventMessageSchema.parse(JSON.parse(out.Messages![0]!.Body!));
    expect(message).toMatchObject({
      v: 1,
      eventId: envelope.id,
      eventType: 'message.sent',
      projectId: 'prj_1',
      channelId: 'ch_1',
    });
    expect(JSON.parse(message.body!)).toEqual({
      id: envelope.id,
      type: 'message.sent',
      timestamp: envelope.timestamp,
      projectId: 'prj_1',
      companyId: 1042,
      channel: { id: 'ch_1', type: 'sms', address: '+5511999990000' },
      data: { messageId: 'msg_1' },
    });
    await sqs.send(
      new DeleteMessageCommand({
        QueueUrl: emulators.queueUrls.events,
        ReceiptHandle: out.Messages![0]!.ReceiptHandle!,
      }),
    );
    sqs.destroy();
  });
});
