import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DynamoUnpublishedEvents, marksOf } from '#shared/events/adapters/dynamo-outbox.ts';
import { makeSweepUnpublishedEvents } from '#shared/events/sweep-unpublished.ts';
import { readItem } from '#shared/kernel/aws/dynamo-table.ts';
import {
  DynamoChannelStore,
  DynamoConversationStore,
  DynamoMessageLog,
  DynamoMessageStatusStore,
  makeApplyReports,
  makeSendMessage,
  sandboxProvider,
} from '#shared/messaging/index.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { RecordingPublisher } from '#test/support/fakes/recording-publisher.ts';
import { useOutboxTable, env, quiet, NO_UNSUBSCRIBES, conversationsOf, mark, channel } from './outbox-fixtures.ts';

/** The outbox through a crash: what a change marked and never queued is published by a retry or the sweep, once. */
useOutboxTable();

describe('a crash between a change and its publish loses nothing', () => {
  it('a status whose publish never happened is published by the retry of the same report, with the same id, once', async () => {
    const statuses = new DynamoMessageStatusStore(env.table);
    const events = new RecordingPublisher();
    // The queue gives a report back after its visibility timeout: the retry runs that much later.
    let clock = Date.now();
    const apply = makeApplyReports({
      statuses,
      conversations: conversationsOf(),
      unsubscribe: NO_UNSUBSCRIBES,
      events,
      log: quiet,
      now: () => new Date(clock),
    });
    const ch = channel();
    // A message this channel sent (its send's own event is not under test here).
    const messageId = `msg_${randomBytes(6).toString('hex')}`;
    await new DynamoMessageLog(env.table).record(
      {
        messageId,
        projectId: ch.projectId,
        channelId: ch.channelId,
        channelType: 'sms',
        integrationId: 'int_1',
        provider: 'sandbox',
        to: '+5511988887777',
        payload: {},
        status: 'sent',
        sentAt: new Date().toISOString(),
        conversationId: 'conv_1',
        contact: '+5511988887777',
      },
      mark(`sent:${messageId}`),
    );
    const report = {
      kind: 'status' as const,
      messageId,
      provider: 'sandbox' as const,
      providerMessageId: 'p1',
      status: 'delivered' as const,
      at: new Date().toISOString(),
    };
    // First try: the write applies, then the process "dies" before the event reaches the queue.
    events.failSends = 1;
    await expect(apply(ch, [report])).rejects.toThrow();
    expect(events.messages).toEqual([]);
    expect((await statuses.get(messageId))?.status).toBe('delivered');
    // The same report processed at once (a provider's retry beside the first, or a crash's retry a moment later):
    // the mark is fresh, most likely another worker's publishing it: left to it, or to the sweep.
    expect(await apply(ch, [report])).toEqual([]);
    expect(events.messages).toEqual([]);
    // The queue gives the report again after its visibility timeout: still marked, so published now.
    clock += 60_000;
    const [again] = await apply(ch, [report]);
    expect(events.events.map((e) => [e.id, e.type])).toEqual([[again!.id, 'message.delivered']]);
    expect(
      marksOf(await readItem(env.table, { pk: `MSG#${messageId}`, sk: 'MSG' })).map((m) => m.eventId),
    ).not.toContain(again!.id);
    // And once more: applied, no mark left: nothing.
    expect(await apply(ch, [report])).toEqual([]);
    expect(events.messages).toHaveLength(1);
  });

  it('a received message whose publish never happened is published by the retry with the id written with it', async () => {
    const statuses = new DynamoMessageStatusStore(env.table);
    const events = new RecordingPublisher();
    let clock = Date.now();
    const apply = makeApplyReports({
      statuses,
      conversations: conversationsOf(),
      unsubscribe: NO_UNSUBSCRIBES,
      events,
      log: quiet,
      now: () => new Date(clock),
    });
    const ch = channel();
    const report = {
      kind: 'message' as const,
      provider: 'sandbox' as const,
      providerMessageId: `SM${randomBytes(6).toString('hex')}`,
      from: '+5511988887777',
      to: ch.address,
      text: 'Oi',
      receivedAt: new Date().toISOString(),
    };
    events.failSends = 1;
    await expect(apply(ch, [report])).rejects.toThrow();
    clock += 60_000; // the queue's visibility timeout
    const [first] = await apply(ch, [report]);
    const [second] = await apply(ch, [report]);
    expect(second).toBeUndefined();
    expect(events.events.map((e) => [e.id, e.type, e.data.text])).toEqual([[first!.id, 'message.received', 'Oi']]);
  });

  it('a send whose event could not be queued answers 200, keeps the event marked, and the sweep publishes it with its id', async () => {
    const secretBox = createSecretBox(randomBytes(32).toString('base64'));
    const channels = new DynamoChannelStore(env.table, secretBox);
    const ch = channel();
    await channels.create(ch);
    const events = new RecordingPublisher();
    const statuses = new DynamoMessageStatusStore(env.table);
    const errors: string[] = [];
    const send = makeSendMessage({
      conversations: new DynamoConversationStore(env.table, secretBox),
      channels,
      messages: new DynamoMessageLog(env.table),
      statuses,
      providers: {
        sandbox: sandboxProvider,
        smtp: sandboxProvider,
        twilio: sandboxProvider,
        'whatsapp-cloud': sandboxProvider,
        ses: sandboxProvider,
      },
      events,
      providerBudgetMs: 5_000,
      onBackgroundError: (what) => errors.push(what),
    });
    events.failSends = 1;
    const sent = await send(
      { kind: 'custom', projectId: ch.projectId, integrationId: 'int_1', channelId: ch.channelId },
      {
        to: '+5511988887777',
        body: 'hello',
      },
    );
    expect(errors).toEqual(['event publish']);
    expect(events.messages).toEqual([]);
    const [pending] = await statuses.pendingEvents(sent.messageId);
    expect(pending).toBeDefined();

    const sweep = makeSweepUnpublishedEvents({
      outbox: new DynamoUnpublishedEvents(env.table),
      queue: events,
      sweepAfterMs: 0,
      log: quiet,
      now: () => Date.now() + 1,
    });
    expect(await sweep()).toBeGreaterThanOrEqual(1);
    const published = events.events.filter((e) => e.data.messageId === sent.messageId);
    expect(published.map((e) => [e.id, e.type])).toEqual([[pending!.eventId, 'message.sent']]);
    expect(await statuses.pendingEvents(sent.messageId)).toEqual([]);
    expect((await statuses.get(sent.messageId))?.status).toBe('sent');
  });
});
