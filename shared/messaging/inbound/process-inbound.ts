import { createHash } from 'node:crypto';
import { markOf, messageOfMark, type EventPublisher, type PreparedEvent } from '../../events/index.ts';
import { failpoint } from '../../kernel/failpoints.ts';
import { parseBoundedJson } from '../../kernel/json-shape.ts';
import type { Channel } from '../channel.ts';
import type { MessageStatusStore } from '../message-status.ts';
import type { InboundReport, NormalisedReport, ReceivedMessage, StatusReport } from './report.ts';
import { withDelivery } from './ses.ts';
import { normaliseTwilio } from './twilio.ts';
import { normaliseWhatsApp } from './whatsapp.ts';

export interface ApplyReportsDeps {
  statuses: Pick<MessageStatusStore, 'findByProviderId' | 'advance' | 'recordInbound' | 'pendingEvents' | 'clearEvent'>;
  events: Pick<EventPublisher, 'prepare' | 'send'>;
  log: { info(message: string, extra?: Record<string, unknown>): void };
  now?: () => Date;
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

/** A status report the sandbox makes: it names our message id, there is no provider id to look up. */
export type SandboxStatusReport = StatusReport & { messageId: string };

/**
 * The `inbound` worker's use case: a queued raw report → §5 events on the channel (contract §10).
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
    return apply(channel, items);
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
 * Each change writes its event's mark in the same conditional write (contract §15), then publishes, then clears the
 * mark. A report whose change is found already applied publishes again what is still marked for it (a crash came
 * between the write and the publish: same event id), and nothing otherwise (a provider's retry, a stale status).
 */
export function makeApplyReports(deps: ApplyReportsDeps) {
  const now = deps.now ?? (() => new Date());

  return async function apply(
    channel: Channel,
    items: (NormalisedReport | SandboxStatusReport)[],
  ): Promise<ReportedEvent[]> {
    const published: ReportedEvent[] = [];
    for (const item of items) {
      const events = item.kind === 'message' ? await received(channel, item) : await status(channel, item);
      published.push(...events);
    }
    return published;
  };

  async function received(channel: Channel, message: ReceivedMessage): Promise<ReportedEvent[]> {
    const messageId = inboundMessageId(channel.channelId, message.provider, receivedIdentity(message));
    const { kind: _kind, transportId: _transportId, email, ...data } = message;
    const prepared = await deps.events.prepare(
      {
        type: 'message.received',
        projectId: channel.projectId,
        companyId: channel.companyId,
        channel: { id: channel.channelId, type: channel.type, address: channel.address },
        data: { messageId, direction: 'inbound', ...data, to: message.to || channel.address, ...(email ?? {}) },
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
      },
      markOf(prepared),
    );
    failpoint('after-inbound-write');
    if (!fresh) {
      deps.log.info('inbound message already received', { channelId: channel.channelId, messageId });
      return republish(messageId, 'message.received');
    }
    await publishMarked(messageId, prepared);
    return [{ id: prepared.envelope.id, type: prepared.envelope.type }];
  }

  async function status(channel: Channel, report: StatusReport | SandboxStatusReport): Promise<ReportedEvent[]> {
    if (report.status === 'ignored') return [];
    const messageId =
      'messageId' in report
        ? report.messageId
        : await deps.statuses
            .findByProviderId(report.provider, report.providerMessageId)
            .then((target) =>
              target?.channelId === channel.channelId && target.projectId === channel.projectId
                ? target.messageId
                : undefined,
            );
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

  /** On the queue, then the mark goes; a mark that cannot be cleared now is cleared by the sweep (same id again). */
  async function publishMarked(messageId: string, prepared: PreparedEvent): Promise<void> {
    await deps.events.send(prepared.message);
    failpoint('after-publish');
    await deps.statuses
      .clearEvent(messageId, prepared.message.eventId)
      .catch((cause: unknown) =>
        deps.log.info('event mark not cleared: the sweep will', { messageId, cause: String(cause) }),
      );
  }

  /** The change was already applied: what is still marked for it was never published (a crash), so it is now. */
  async function republish(messageId: string, type: string): Promise<ReportedEvent[]> {
    const pending = (await deps.statuses.pendingEvents(messageId))
      .map((mark) => ({ mark, message: messageOfMark(mark) }))
      .filter(({ message }) => message.eventType === type);
    for (const { mark, message } of pending) {
      deps.log.info('publishing an event its change left unpublished', { messageId, eventId: mark.eventId });
      await deps.events.send(message);
      await deps.statuses.clearEvent(messageId, mark.eventId);
    }
    return pending.map(({ message }) => ({ id: message.eventId, type: message.eventType }));
  }
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * What makes a received message the same one again (contract §15): what the transport guarantees per delivery
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
