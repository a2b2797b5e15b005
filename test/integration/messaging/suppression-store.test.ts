import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdFor, type OutboxMark } from '#shared/events/index.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { DynamoConversationStore } from '#shared/messaging/adapters/dynamo-conversation-store.ts';
import { DynamoMessageLog } from '#shared/messaging/adapters/dynamo-message-log.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * Suppressions and sent mail in DynamoDB (dynalite): a change that finds the contact already in its state still
 * records its order, so an older change delivered later does not apply; a Message-ID is a sent one only when a send
 * recorded it, with the addresses it went to.
 */
let env: { table: DynamoTable; close(): Promise<void> };
let store: DynamoConversationStore;
beforeAll(async () => {
  env = await startTestTable();
  store = new DynamoConversationStore(env.table, createSecretBox(randomBytes(32).toString('base64')));
});
afterAll(async () => env?.close());

const mark = (key: string): OutboxMark => {
  const at = Date.now();
  const eventId = eventIdFor(key, at);
  return {
    eventId,
    at,
    message: JSON.stringify({ v: 1, eventId, eventType: 'contact.opted_out', acceptedAt: at }),
    orderGroup: `prj_1/conversation:${key}`,
  };
};

describe('suppression changes', () => {
  const channelId = `ch_${randomBytes(4).toString('hex')}`;
  const change = (contact: string, order: string, optOut: boolean) =>
    store.changeSuppression({
      projectId: 'prj_1',
      channelId,
      contact,
      order,
      mark: mark(`${contact}${order}`),
      ...(optOut
        ? { suppression: { contact, reason: 'keyword' as const, at: order.slice(0, 24), keyword: 'STOP' } }
        : {}),
    });
  const suppressed = async (contact: string) =>
    (await store.state('prj_1', channelId, contact)).suppression !== undefined;

  it('a START that found nothing to lift still outranks an older STOP delivered after it', async () => {
    expect(await change('5511900000001', '2026-03-01T10:00:01.000Z#0#a', false)).toBe(false);
    expect(await change('5511900000001', '2026-03-01T10:00:00.000Z#1#b', true)).toBe(false);
    expect(await suppressed('5511900000001')).toBe(false);
    // A newer STOP still applies.
    expect(await change('5511900000001', '2026-03-01T10:00:02.000Z#1#c', true)).toBe(true);
    expect(await suppressed('5511900000001')).toBe(true);
  });

  it('a second STOP over a START between them: the latest STOP wins whatever the delivery order', async () => {
    expect(await change('5511900000002', '2026-03-01T10:00:00.000Z#1#a', true)).toBe(true);
    expect(await change('5511900000002', '2026-03-01T10:00:02.000Z#1#c', true)).toBe(false);
    expect(await change('5511900000002', '2026-03-01T10:00:01.000Z#0#b', false)).toBe(false);
    expect(await suppressed('5511900000002')).toBe(true);
    // The same report again changes nothing either.
    expect(await change('5511900000002', '2026-03-01T10:00:02.000Z#1#c', true)).toBe(false);
  });

  it('an admin removal lifts whatever the order; the listing shows suppressed contacts only', async () => {
    expect(
      await store.changeSuppression({
        projectId: 'prj_1',
        channelId,
        contact: '5511900000002',
        order: '2000-01-01T00:00:00.000Z#admin',
        force: true,
        mark: mark('admin'),
      }),
    ).toBe(true);
    expect((await store.listSuppressions('prj_1', channelId, { limit: 10 })).items.map((s) => s.contact)).toEqual([
      '5511900000001',
    ]);
  });
});

describe('sent mail', () => {
  it('is known by the Message-ID a send recorded, with its recipients; a received mail’s Message-ID is not', async () => {
    const channelId = `ch_${randomBytes(4).toString('hex')}`;
    await new DynamoMessageLog(env.table).record(
      {
        messageId: `msg_${randomBytes(6).toString('hex')}`,
        projectId: 'prj_1',
        channelId,
        channelType: 'email',
        integrationId: 'int_1',
        provider: 'smtp',
        to: ['ana@example.org'],
        payload: {},
        status: 'sent',
        providerMessageIds: ['<sent@shop.example.com>'],
        sentAt: new Date().toISOString(),
        conversationId: 'conv_1',
        contact: 'ana@example.org',
        threadIds: ['<sent@shop.example.com>'],
        mailRecipients: ['ana@example.org', 'audit@example.net'],
      },
      mark('sent'),
    );
    await store.rememberThread(channelId, '<received@elsewhere.example.org>', 'conv_2', new Date().toISOString());
    // A received mail claiming the sent one's Message-ID changes nothing (the first claim keeps it).
    await store.rememberThread(channelId, '<sent@shop.example.com>', 'conv_3', new Date().toISOString());
    expect(await store.sentMail(channelId, '<sent@shop.example.com>')).toEqual([
      'ana@example.org',
      'audit@example.net',
    ]);
    expect(await store.sentMail(channelId, '<received@elsewhere.example.org>')).toBeUndefined();
    expect(await store.sentMail(`${channelId}x`, '<sent@shop.example.com>')).toBeUndefined();
    expect((await store.threads(channelId, ['<sent@shop.example.com>'])).get('<sent@shop.example.com>')).toBe('conv_1');
  });
});
