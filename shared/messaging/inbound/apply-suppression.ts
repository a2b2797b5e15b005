import { markOf, messageOfMark, type WebhookEventType } from '../../events/index.ts';
import type { Channel } from '../channel.ts';
import { conversationIdOf, normaliseContact } from '../conversation.ts';
import type { ApplyReportsDeps, ReportedEvent } from './apply-ports.ts';
import type { MarkedEvents } from './marked-events.ts';
import type { SuppressionStep } from './opt-outs.ts';
import type { SuppressionReport } from './report.ts';

/** Changes of a contact's opt-out: from a received message (keywords, unsubscribes, bounces) or a provider's report. */
export function makeSuppressionSteps(
  deps: Pick<ApplyReportsDeps, 'statuses' | 'conversations' | 'events' | 'log'> & { now: () => Date },
  marks: Pick<MarkedEvents, 'settled'>,
) {
  /**
   * One change of a contact's opt-out, written with its `contact.opted_out` / `contact.opted_in` mark; published when
   * it applied, and when it did not (already in that state, or a later change won) what a crash left marked for it.
   */
  async function changeSuppression(
    channel: Channel,
    causeId: string,
    order: string,
    change: SuppressionStep,
  ): Promise<ReportedEvent[]> {
    const type: WebhookEventType = change.suppression ? 'contact.opted_out' : 'contact.opted_in';
    const prepared = await deps.events.prepare(
      {
        type,
        projectId: channel.projectId,
        companyId: channel.companyId,
        channel: { id: channel.channelId, type: channel.type, address: channel.address },
        data: {
          contact: change.contact,
          conversationId: conversationIdOf(channel.channelId, change.contact),
          reason: change.suppression?.reason ?? 'keyword',
          ...((change.suppression?.keyword ?? change.keyword)
            ? { keyword: change.suppression?.keyword ?? change.keyword }
            : {}),
        },
      },
      { key: `${type}:${channel.channelId}:${change.contact}:${causeId}`, at: deps.now() },
    );
    const key = [channel.projectId, channel.channelId, change.contact] as const;
    const changed = await deps.conversations.changeSuppression({
      projectId: channel.projectId,
      channelId: channel.channelId,
      contact: change.contact,
      ...(change.suppression ? { suppression: change.suppression } : {}),
      order,
      mark: markOf(prepared),
    });
    if (changed) {
      await deps.events.send(prepared.message);
      await deps.conversations
        .clearSuppressionEvent(...key, prepared.message.eventId)
        .catch((cause: unknown) => deps.log.info('event mark not cleared: the sweep will', { cause: String(cause) }));
      return [{ id: prepared.envelope.id, type }];
    }
    const pending = await marks.settled(() => deps.conversations.pendingSuppressionEvents(...key));
    for (const mark of pending) {
      await deps.events.send(messageOfMark(mark));
      await deps.conversations.clearSuppressionEvent(...key, mark.eventId);
    }
    return pending.map((mark) => ({ id: mark.eventId, type: messageOfMark(mark).eventType }));
  }

  /**
   * A provider's bounce or complaint: each named recipient of the message this channel sent under that provider id
   * is suppressed (with `contact.opted_out`); a provider id this channel never sent, or an address the message did
   * not go to, changes nothing (logged).
   */
  async function providerSuppression(channel: Channel, report: SuppressionReport): Promise<ReportedEvent[]> {
    const target = await deps.statuses.findByProviderId(report.provider, report.providerMessageId, channel.channelId);
    const record = target?.projectId === channel.projectId ? await deps.statuses.get?.(target.messageId) : undefined;
    if (!record) {
      deps.log.info('bounce or complaint about a message this channel did not send: no suppression', {
        channelId: channel.channelId,
        providerMessageId: report.providerMessageId,
      });
      return [];
    }
    const sentTo = new Set([record.to].flat().map((a) => normaliseContact(channel.type, a)));
    const published: ReportedEvent[] = [];
    for (const raw of report.contacts) {
      const contact = normaliseContact(channel.type, raw);
      if (!contact || !sentTo.has(contact)) {
        deps.log.info('bounce or complaint names an address the message did not go to: not suppressed', {
          channelId: channel.channelId,
        });
        continue;
      }
      const causeId = `${report.reason}:${report.providerMessageId}`;
      const step: SuppressionStep = { contact, suppression: { contact, reason: report.reason, at: report.at } };
      published.push(...(await changeSuppression(channel, causeId, `${report.at}#1##${causeId}`, step)));
    }
    return published;
  }

  return { changeSuppression, providerSuppression };
}
