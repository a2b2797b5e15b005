import { createHash } from 'node:crypto';
import {
  markOf,
  messageOfMark,
  type EventPublisher,
  type PreparedEvent,
  type WebhookEventType,
} from '../../events/index.ts';
import { failpoint } from '../../kernel/failpoints.ts';
import { parseBoundedJson } from '../../kernel/json-shape.ts';
import type { Channel } from '../channel.ts';
import { type ConversationStore, conversationIdOf, normaliseContact } from '../conversation.ts';
import type { ListUnsubscribe } from '../list-unsubscribe.ts';
import { messageIdsIn } from '../mail-threads.ts';
import { type MediaStore, mediaView, type StoredMedia } from '../media.ts';
import { type MessageStatusStore, previewOf } from '../message-status.ts';
import type { CollectMedia } from './collect-media.ts';
import { makeSuppressionChanges, type SuppressionStep, suppressionOrder, withArrival } from './opt-outs.ts';
import type { InboundReport, NormalisedReport, ReceivedMessage, StatusReport, SuppressionReport } from './report.ts';
import { withDelivery } from './ses.ts';
import { normaliseTwilio } from './twilio.ts';
import { normaliseWhatsApp } from './whatsapp.ts';
import { isFor } from './order.ts';

export interface ApplyReportsDeps {
  statuses: Pick<
    MessageStatusStore,
    'findByProviderId' | 'advance' | 'recordInbound' | 'pendingEvents' | 'clearEvent'
  > &
    /** Whom a sent message went to (a provider's bounce or complaint suppresses only those); without it, none. */
    Partial<Pick<MessageStatusStore, 'get'>>;
  /** Windows, mail threads and opt-outs. */
  conversations: Pick<
    ConversationStore,
    | 'touchInbound'
    | 'threads'
    | 'sentMail'
    | 'rememberThread'
    | 'changeSuppression'
    | 'pendingSuppressionEvents'
    | 'clearSuppressionEvent'
  >;
  /** Recognises the channel's per-recipient unsubscribe addresses (an unsubscribe by mail is believed only so). */
  unsubscribe: Pick<ListUnsubscribe, 'isAddressOf'>;
  /** Fetches and stores a received message's media, and signs their URLs; absent where no media can arrive. */
  media?: { collect: CollectMedia; store: Pick<MediaStore, 'url'> };
  events: Pick<EventPublisher, 'prepare' | 'send'>;
  log: { info(message: string, extra?: Record<string, unknown>): void };
  now?: () => Date;
  /** How the worker waits for a concurrent worker's publish to land (tests pass a clock of their own). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * No other worker works these reports' contact at the same time (the ordered lane: one message group per contact).
   * A mark found pending is then a crash's, published at once: waiting for its writer, or leaving it to the sweep,
   * would let the contact's next report publish first.
   */
  exclusive?: boolean;
  /**
   * Takes the clearing of a published event's mark instead of awaiting it, so the contact's next report need not wait
   * for it (the ordered lane awaits these before its batch ends). A mark a crash leaves uncleared is published again
   * by the sweep: a duplicate under the same id.
   */
  meanwhile?: (step: Promise<unknown>) => void;
}

export interface ProcessInboundDeps extends ApplyReportsDeps {
  /** Channels by id alone (the inbound URL carries no project). */
  channels: { findById(channelId: string): Promise<Channel | undefined> };
  /** Raw reports parked in the transfer bucket (large bodies, every mail). */
  rawReports: { get(key: string): Promise<Buffer | undefined> };
  /** MIME → the received message (mailparser); `to` is the channel's address. */
  parseMail(raw: Buffer, to: string): Promise<ReceivedMessage>;
  /** What was dropped and why (never a secret, never a body). */
  log: {
    info(message: string, extra?: Record<string, unknown>): void;
    warn(message: string, extra?: Record<string, unknown>): void;
  };
}

/** A status report the sandbox makes: it names our message id (and its conversation), there is no provider id to look up. */
export type SandboxStatusReport = StatusReport & { messageId: string; conversationId?: string };

/**
 * The `inbound` worker's use case: a queued raw report → message events on the channel.
 * 1. find the channel (gone, or not the provider of the report: dropped, logged);
 * 2. read the raw report (inline or parked in S3) and normalise it (unparsable: logged, nothing emitted);
 * 3. a received message is recorded once under an id derived from its identity (the provider's
 *    id, or for mail the SES message id), its `message.received` marked
 *    in the same write (a retry finds it there: no second event, unless its event was never published);
 * 4. a status finds the message its provider id was sent as, moves it forward with one conditional write carrying
 *    the `message.delivered` / `.read` / `.failed` mark, published only when the write applied (or still marked).
 * Returns the events published.
 */
export function makeProcessInbound(deps: ProcessInboundDeps) {
  const apply = makeApplyReports(deps);

  async function process(report: InboundReport): Promise<ReportedEvent[]> {
    const channel = await deps.channels.findById(report.channelId);
    const expected = report.source === 'email' ? undefined : report.source;
    if (!channel || channel.projectId !== report.projectId || (expected && channel.provider.kind !== expected)) {
      deps.log.info('inbound report for a channel that is gone: dropped', { channelId: report.channelId });
      return [];
    }
    const raw = report.body !== undefined ? Buffer.from(report.body, 'utf8') : await readParked(report);
    if (!raw) return [];
    const receivedAt = new Date(report.receivedAt).toISOString();
    let items: NormalisedReport[];
    try {
      items = await normalise(report, channel, raw, receivedAt);
    } catch (cause) {
      deps.log.warn('signed inbound report does not parse: nothing emitted', {
        channelId: channel.channelId,
        source: report.source,
        cause: String(cause),
      });
      return [];
    }
    return apply(
      channel,
      withArrival(
        items.filter((i) => isFor(report, channel, i)),
        report.receivedAt,
      ),
    );
  }

  async function readParked(report: InboundReport): Promise<Buffer | undefined> {
    const raw = report.bodyRef ? await deps.rawReports.get(report.bodyRef) : undefined;
    if (!raw) deps.log.warn('parked inbound report is missing: dropped', { key: report.bodyRef });
    return raw;
  }

  async function normalise(
    report: InboundReport,
    channel: Channel,
    raw: Buffer,
    receivedAt: string,
  ): Promise<NormalisedReport[]> {
    switch (report.source) {
      case 'twilio': {
        const fields = new URLSearchParams(raw.toString('utf8'));
        const account = fields.get('AccountSid');
        if (channel.provider.kind === 'twilio' && account && account !== channel.provider.accountSid)
          throw new Error('the report is for another Twilio account');
        const item = normaliseTwilio(fields, receivedAt);
        return item ? [item] : [];
      }
      case 'whatsapp-cloud': {
        const phoneNumberId = channel.provider.kind === 'whatsapp-cloud' ? channel.provider.phoneNumberId : '';
        return normaliseWhatsApp(parseBoundedJson(raw.toString('utf8')), phoneNumberId);
      }
      case 'email':
        return [withDelivery(await deps.parseMail(raw, channel.address), report)];
    }
  }

  return { process, apply };
}

export type ProcessInbound = ReturnType<typeof makeProcessInbound>;

/** An event a report produced (or, after a crash, published again): its id and type. */
export interface ReportedEvent {
  id: string;
  type: string;
}

/**
 * Steps 3 and 4 of {@link makeProcessInbound}: normalised reports applied to a channel, in order, and the events
 * published. Also what the sandbox's simulation routes call, so a simulated reply or receipt goes the same way.
 *
 * Each change writes its event's mark in the same conditional write, then publishes, then clears the
 * mark. A report whose change is found already applied publishes again what is still marked for it (a crash came
 * between the write and the publish: same event id), and nothing otherwise (a provider's retry, a stale status).
 */
export function makeApplyReports(deps: ApplyReportsDeps) {
  const now = deps.now ?? (() => new Date());
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const suppressionChanges = makeSuppressionChanges(deps);

  return async function apply(
    channel: Channel,
    items: (NormalisedReport | SandboxStatusReport)[],
  ): Promise<ReportedEvent[]> {
    const published: ReportedEvent[] = [];
    for (const item of items) {
      const events =
        item.kind === 'message'
          ? await received(channel, item)
          : item.kind === 'suppression'
            ? await providerSuppression(channel, item)
            : await status(channel, item);
      published.push(...events);
    }
    return published;
  };

  /**
   * A received message: 1. WhatsApp: the contact's window moves to this message (before its
   * event is out, so a reply sent on `message.received` finds the window open); 2. its conversation (mail: the thread
   * its `In-Reply-To` / `References` name, remembered under its own Message-ID for the replies to come); 3. its media
   * fetched and stored; 4. recorded once with `message.received` marked; 5. an opt-out or opt-in keyword, a mailed
   * unsubscribe or a hard bounce changes a suppression when it is believable (./opt-outs.ts), each change with its
   * own event.
   * Each step is safe to repeat: a retried report redoes 1-3 to the same result and republishes only what is marked.
   */
  async function received(channel: Channel, message: ReceivedMessage): Promise<ReportedEvent[]> {
    const messageId = inboundMessageId(channel.channelId, message.provider, receivedIdentity(message));
    const contact = normaliseContact(channel.type, message.from) ?? message.from.trim();
    if (channel.type === 'whatsapp' && contact)
      await deps.conversations.touchInbound(channel.channelId, contact, message.receivedAt);
    const conversationId = await conversationOfMail(channel, message, contact);
    const stored = await storeMedia(channel, messageId, message);
    const media = await Promise.all(stored.map((m) => mediaView(m, deps.media?.store ?? UNSIGNED, now())));
    const { kind: _kind, transportId: _transportId, arrival: _arrival, email, media: _references, ...data } = message;
    const { deliveryStatus: _deliveryStatus, signedBy: _signedBy, envelopeTo: _envelopeTo, ...mail } = email ?? {};
    const prepared = await deps.events.prepare(
      {
        type: 'message.received',
        projectId: channel.projectId,
        companyId: channel.companyId,
        channel: { id: channel.channelId, type: channel.type, address: channel.address },
        data: {
          messageId,
          conversationId,
          direction: 'inbound',
          ...data,
          to: message.to || channel.address,
          ...(media.length ? { media } : {}),
          ...(email ? mail : {}),
        },
      },
      { key: `received:${messageId}`, at: now() },
    );
    const fresh = await deps.statuses.recordInbound(
      {
        messageId,
        projectId: channel.projectId,
        channelId: channel.channelId,
        channelType: channel.type,
        direction: 'inbound',
        provider: message.provider,
        status: 'received',
        to: message.to || channel.address,
        from: message.from,
        createdAt: message.receivedAt,
        history: [{ status: 'received', at: message.receivedAt }],
        conversationId,
        ...(contact ? { contact } : {}),
        ...previewOf(message.text),
        ...(email ? { subject: email.subject } : {}),
        ...(stored.length ? { media: stored } : {}),
      },
      markOf(prepared),
    );
    failpoint('after-inbound-write');
    const published: ReportedEvent[] = [];
    if (!fresh) {
      deps.log.info('inbound message already received', { channelId: channel.channelId, messageId });
      published.push(...(await republish(messageId, 'message.received')));
    } else {
      await publishMarked(messageId, prepared);
      published.push({ id: prepared.envelope.id, type: prepared.envelope.type });
    }
    for (const change of await suppressionChanges(channel, message, contact))
      published.push(
        ...(await changeSuppression(channel, messageId, suppressionOrder(message, change, messageId), change)),
      );
    return published;
  }

  /**
   * The conversation of a received message: the contact's, or for mail the thread its `In-Reply-To` and `References`
   * name (nearest first) when this channel knows one of them; the mail's own Message-ID then joins that conversation.
   */
  async function conversationOfMail(channel: Channel, message: ReceivedMessage, contact: string): Promise<string> {
    const own = conversationIdOf(channel.channelId, contact);
    if (!message.email) return own;
    const ancestors = [
      ...(message.email.inReplyTo ? messageIdsIn(message.email.inReplyTo) : []),
      ...(message.email.references ?? []).flatMap(messageIdsIn).reverse(),
    ].slice(0, 20);
    const known = ancestors.length ? await deps.conversations.threads(channel.channelId, ancestors) : new Map();
    const conversationId = ancestors.map((id) => known.get(id)).find((c) => c !== undefined) ?? own;
    const ownId = messageIdsIn(message.providerMessageId)[0];
    if (ownId) await deps.conversations.rememberThread(channel.channelId, ownId, conversationId, message.receivedAt);
    return conversationId;
  }

  async function storeMedia(channel: Channel, messageId: string, message: ReceivedMessage): Promise<StoredMedia[]> {
    const references = message.media ?? [];
    if (!references.length) return [];
    if (deps.media) return deps.media.collect(channel, messageId, references);
    return references.map((r) => ({
      ...(r.contentType ? { contentType: r.contentType } : {}),
      error: 'Media are not fetched on this path',
    }));
  }

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
      { key: `${type}:${channel.channelId}:${change.contact}:${causeId}`, at: now() },
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
    const pending = await settled(() => deps.conversations.pendingSuppressionEvents(...key));
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
    const target = await deps.statuses.findByProviderId(report.provider, report.providerMessageId);
    const record =
      target?.channelId === channel.channelId && target.projectId === channel.projectId
        ? await deps.statuses.get?.(target.messageId)
        : undefined;
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

  async function status(channel: Channel, report: StatusReport | SandboxStatusReport): Promise<ReportedEvent[]> {
    if (report.status === 'ignored') return [];
    const target =
      'messageId' in report
        ? { messageId: report.messageId, conversationId: report.conversationId }
        : await deps.statuses
            .findByProviderId(report.provider, report.providerMessageId)
            .then((found) =>
              found?.channelId === channel.channelId && found.projectId === channel.projectId ? found : undefined,
            );
    const messageId = target?.messageId;
    if (!messageId) {
      deps.log.info('status for a provider id this channel never sent: dropped', {
        channelId: channel.channelId,
        providerMessageId: report.providerMessageId,
      });
      return [];
    }
    const type = `message.${report.status}` as const;
    const prepared = await deps.events.prepare(
      {
        type,
        projectId: channel.projectId,
        companyId: channel.companyId,
        channel: { id: channel.channelId, type: channel.type, address: channel.address },
        data: {
          messageId,
          ...(target.conversationId ? { conversationId: target.conversationId } : {}),
          providerMessageId: report.providerMessageId,
          status: report.status,
          at: report.at,
          ...(report.error === undefined ? {} : { error: report.error }),
        },
      },
      { key: `status:${messageId}:${report.status}`, at: now() },
    );
    const changed = await deps.statuses.advance(
      messageId,
      { status: report.status, at: report.at, ...(report.error === undefined ? {} : { error: report.error }) },
      markOf(prepared),
    );
    failpoint('after-status-write');
    if (!changed) return republish(messageId, type);
    await publishMarked(messageId, prepared);
    return [{ id: prepared.envelope.id, type }];
  }

  /**
   * What is still marked after a short wait. A change found applied with its mark pending is either a crash's (the
   * mark stays: publish it) or another worker's still publishing it (a provider's retry processed at the same moment:
   * its mark goes within milliseconds). Waiting up to about 1.5 s tells the two apart, so the retry does not deliver
   * the event a second time; a crash's event goes out that much later.
   */
  async function settled<T>(read: () => Promise<T[]>): Promise<T[]> {
    let pending = await read();
    for (const ms of deps.exclusive ? [] : SETTLE_WAITS_MS) {
      if (!pending.length) break;
      await sleep(ms);
      pending = await read();
    }
    return pending;
  }

  /** On the queue, then the mark goes; a mark that cannot be cleared now is cleared by the sweep (same id again). */
  async function publishMarked(messageId: string, prepared: PreparedEvent): Promise<void> {
    await deps.events.send(prepared.message);
    failpoint('after-publish');
    const clearing = deps.statuses
      .clearEvent(messageId, prepared.message.eventId)
      .catch((cause: unknown) =>
        deps.log.info('event mark not cleared: the sweep will', { messageId, cause: String(cause) }),
      );
    if (deps.meanwhile) deps.meanwhile(clearing);
    else await clearing;
  }

  /** The change was already applied: what is still marked for it was never published (a crash), so it is now. */
  async function republish(messageId: string, type: string): Promise<ReportedEvent[]> {
    const at = now().getTime();
    const marked = (await deps.statuses.pendingEvents(messageId))
      .map((mark) => ({ mark, message: messageOfMark(mark) }))
      .filter(({ message }) => message.eventType === type);
    // A mark written moments ago is most likely another worker's still publishing (a provider's retry processed at
    // the same moment): publishing it here would deliver the event twice. It is left to that worker, or, if that
    // worker died, to the sweep (EVENT_SWEEP_AFTER_SECONDS). Older marks are a crash's: published now.
    const pending = marked.filter(
      ({ mark }) => deps.exclusive || mark.writtenAt === undefined || at - mark.writtenAt >= FRESH_MARK_MS,
    );
    if (pending.length < marked.length)
      deps.log.info('a fresh event mark left to its writer or the sweep', { messageId, type });
    for (const { mark, message } of pending) {
      deps.log.info('publishing an event its change left unpublished', { messageId, eventId: mark.eventId });
      await deps.events.send(message);
      await deps.statuses.clearEvent(messageId, mark.eventId);
    }
    return pending.map(({ message }) => ({ id: message.eventId, type: message.eventType }));
  }
}

/**
 * How old a mark must be before a retry republishes it (see `republish`). Well past the milliseconds a publish takes,
 * even on a loaded machine; below the inbound queue's visibility timeout on AWS, so a crash's retry publishes at once.
 */
const FRESH_MARK_MS = 10_000;

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/** The waits before a retry publishes what it finds still marked (see `settled`). */
const SETTLE_WAITS_MS = [50, 200, 500, 750];

/** Where nothing was stored there is nothing to sign (only error items reach it). */
const UNSIGNED: Pick<MediaStore, 'url'> = {
  url: () => Promise.reject(new Error('no media store on this path')),
};

/**
 * What makes a received message the same one again: what the transport guarantees per delivery
 * (mail: the SES message id, see ./ses.ts), else the provider's id (Twilio's SID, WhatsApp's wamid: the provider
 * assigns them). Never a header the sender writes: two mails with the same `Message-ID` are two messages.
 */
export function receivedIdentity(message: Pick<ReceivedMessage, 'providerMessageId' | 'transportId'>): string {
  return message.transportId ?? message.providerMessageId;
}

/**
 * The id of a received message, derived from its identity ({@link receivedIdentity}) within the channel: the same
 * report received twice gets the same id, so its record's conditional write is the dedupe.
 */
export function inboundMessageId(channelId: string, provider: string, identity: string): string {
  const digest = createHash('sha256').update(`${channelId}\n${provider}\n${identity}`).digest();
  let id = '';
  for (let i = 0; i < 20; i++) id += BASE36[digest[i]! % 36];
  return `msg_${id}`;
}
