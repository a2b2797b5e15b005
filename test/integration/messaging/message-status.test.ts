import { eventIdFor, type OutboxMark } from '#shared/events/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoMessageLog } from '#shared/messaging/adapters/dynamo-message-log.ts';
import { DynamoMessageStatusStore } from '#shared/messaging/adapters/dynamo-message-status-store.ts';
import { newId } from '#shared/kernel/ids.ts';
import type { MessageRecord } from '#shared/messaging/message.ts';
import { canAdvance, type OutboundStatus } from '#shared/messaging/message-status.ts';
import { startTestTable } from '#test/support/dynamo.ts';

let db: Awaited<ReturnType<typeof startTestTable>>;
let log: DynamoMessageLog;
let store: DynamoMessageStatusStore;

beforeAll(async () => {
  db = await startTestTable();
  log = new DynamoMessageLog(db.table);
  store = new DynamoMessageStatusStore(db.table);
});
afterAll(() => db?.close());

async function sent(
  providerMessageIds: string[] = [`SM${newId('x').slice(2)}`],
  channel = { projectId: 'prj_1', channelId: 'ch_1' },
): Promise<MessageRecord> {
  const record: MessageRecord = {
    messageId: newId('msg'),
    ...channel,
    channelType: 'sms',
    integrationId: 'int_1',
    provider: 'twilio',
    to: '+5511988887777',
    payload: { to: '+5511988887777', body: 'hi' },
    status: 'sent',
    providerMessageIds,
    sentAt: new Date().toISOString(),
    conversationId: 'conv_1',
    contact: '+5511988887777',
  };
  await log.record(record, mark(`sent:${record.messageId}`));
  return record;
}

/** An outbox mark as a change writes it (the queue message is opaque here). */
function mark(key: string): OutboxMark {
  const at = Date.now();
  const eventId = eventIdFor(key, at);
  return { eventId, at, message: JSON.stringify({ eventId }), orderGroup: `prj_1/conversation:${key}` };
}

describe('message status over DynamoDB', () => {
  it('a provider id sent by two channels finds each channel its own message, and no one without a channel', async () => {
    const id = `SM${newId('x').slice(2)}`;
    const mine = await sent([id]);
    // Another project's provider (any server it names) answers with the same id, after this one.
    const theirs = await sent([id], { projectId: 'prj_2', channelId: 'ch_2' });
    expect((await store.findByProviderId('twilio', id, 'ch_1'))?.messageId).toBe(mine.messageId);
    expect((await store.findByProviderId('twilio', id, 'ch_2'))?.messageId).toBe(theirs.messageId);
    expect(await store.findByProviderId('twilio', id, 'ch_3')).toBeUndefined();
    // SES's events name no channel: an id two channels recorded names no one message.
    expect(await store.findByProviderId('twilio', id)).toBeUndefined();
    const alone = await sent();
    expect((await store.findByProviderId('twilio', alone.providerMessageIds![0]!))?.messageId).toBe(alone.messageId);
  });

  it('finds a lookup written before they were kept per channel, for its own channel only', async () => {
    const id = `SM${newId('x').slice(2)}`;
    await db.table.client.send(
      new PutCommand({
        TableName: db.table.tableName,
        Item: { pk: `PMID#twilio#${id}`, sk: 'PMID', messageId: 'msg_old', projectId: 'prj_1', channelId: 'ch_1' },
      }),
    );
    expect(await store.findByProviderId('twilio', id, 'ch_1')).toEqual({
      messageId: 'msg_old',
      projectId: 'prj_1',
      channelId: 'ch_1',
    });
    expect(await store.findByProviderId('twilio', id, 'ch_2')).toBeUndefined();
    expect((await store.findByProviderId('twilio', id))?.messageId).toBe('msg_old');
  });

  it('a send records the status item and the provider-id lookups with the record', async () => {
    const record = await sent(['SMaaa', 'SMbbb']);
    expect(await store.get(record.messageId)).toMatchObject({
      messageId: record.messageId,
      direction: 'outbound',
      status: 'sent',
      history: [{ status: 'sent', at: record.sentAt }],
    });
    for (const id of ['SMaaa', 'SMbbb'])
      expect(await store.findByProviderId('twilio', id, 'ch_1')).toEqual({
        messageId: record.messageId,
        projectId: 'prj_1',
        channelId: 'ch_1',
        conversationId: 'conv_1',
      });
    expect(await store.findByProviderId('whatsapp-cloud', 'SMaaa', 'ch_1')).toBeUndefined();
    expect(await store.findByProviderId('twilio', 'SMaaa', 'ch_2')).toBeUndefined();
    // Only a sandbox channel's send has an outbox entry (its own write): the record copies no payload anywhere else.
    expect((await log.listOutbox('prj_1', 'ch_1', { limit: 10 })).items.map((i) => i.messageId)).not.toContain(
      record.messageId,
    );
  });

  it('ten concurrent workers applying the same receipt move the message once', async () => {
    const record = await sent();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => store.advance(record.messageId, { status: 'delivered', at: 't1' }, mark('d'))),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect((await store.get(record.messageId))?.history.map((h) => h.status)).toEqual(['sent', 'delivered']);
  });

  it('forward only, in any order of reports: the stored history is the order the rules allow', async () => {
    const statuses: OutboundStatus[] = ['sent', 'delivered', 'read', 'failed'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...statuses), { maxLength: 6 }), async (reports) => {
        const record = await sent();
        let expected: OutboundStatus = 'sent';
        const history = ['sent'];
        for (const status of reports) {
          const changed = await store.advance(record.messageId, { status, at: 'x' }, mark(status));
          expect(Boolean(changed)).toBe(canAdvance(expected, status));
          if (changed) {
            expected = status;
            history.push(status);
          }
        }
        const stored = await store.get(record.messageId);
        expect(stored?.status).toBe(expected);
        expect(stored?.history.map((h) => h.status)).toEqual(history);
      }),
      { numRuns: 25 },
    );
  });

  it('an inbound message is recorded once per id', async () => {
    const record = {
      messageId: newId('msg'),
      projectId: 'prj_1',
      channelId: 'ch_1',
      channelType: 'sms' as const,
      direction: 'inbound' as const,
      provider: 'twilio' as const,
      status: 'received' as const,
      to: '+5511999990000',
      from: '+5511988887777',
      createdAt: new Date().toISOString(),
      history: [{ status: 'received' as const, at: new Date().toISOString() }],
    };
    expect(await Promise.all([store.recordInbound(record, mark('r')), store.recordInbound(record, mark('r'))])).toEqual(
      expect.arrayContaining([true, false]),
    );
    // A received message never moves.
    expect(await store.advance(record.messageId, { status: 'read', at: 'x' }, mark('x'))).toBeUndefined();
  });
});

describe('canAdvance', () => {
  it('sent < delivered < read; read and failed are final', () => {
    expect(canAdvance('sent', 'delivered')).toBe(true);
    expect(canAdvance('sent', 'read')).toBe(true);
    expect(canAdvance('delivered', 'failed')).toBe(true);
    expect(canAdvance('delivered', 'delivered')).toBe(false);
    expect(canAdvance('read', 'failed')).toBe(false);
    expect(canAdvance('failed', 'read')).toBe(false);
    expect(canAdvance('read', 'delivered')).toBe(false);
  });
});
