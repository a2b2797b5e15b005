import { createHash } from 'node:crypto';
import type { EventEnvelope, EventPublisher } from '../../events/envelope.ts';
import { parseBoundedJson } from '../../kernel/json-shape.ts';
import type { Channel } from '../channel.ts';
import type { MessageStatusStore } from '../message-status.ts';
import type { InboundReport, NormalisedReport, ReceivedMessage, StatusReport } from './report.ts';
import { normaliseTwilio } from './twilio.ts';
import { normaliseWhatsApp } from './whatsapp.ts';

export interface ApplyReportsDeps {
  statuses: Pick<MessageStatusStore, 'findByProviderId' | 'advance' | 'recordInbound'>;
  events: EventPublisher;
  log: { info(message: string, extra?: Record<string, unknown>): void };
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
 * 3. a received message is recorded once under an id derived from its provider id (a retry finds it there: no
 *    second event) and becomes `message.received`;
 * 4. a status finds the message its provider id was sent as, moves it forward with one conditional write, and
 *    becomes `message.delivered` / `.read` / `.failed` only when the write applied.
 * Returns the events published.
 */
export function makeProcessInbound(deps: ProcessInboundDeps) {
  const apply = makeApplyReports(deps);

  async function process(report: InboundReport): Promise<EventEnvelope[]> {
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
      items = await normalise(report.source, channel, raw, receivedAt);
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
    source: InboundReport['source'],
    channel: Channel,
    raw: Buffer,
    receivedAt: string,
  ): Promise<NormalisedReport[]> {
    switch (source) {
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
        return [await deps.parseMail(raw, channel.address)];
    }
  }

  return { process, apply };
}

export type ProcessInbound = ReturnType<typeof makeProcessInbound>;

/**
 * Steps 3 and 4 of {@link makeProcessInbound}: normalised reports applied to a channel, in order, and the events
 * published. Also what the sandbox's simulation routes call, so a simulated reply or receipt goes the same way.
 */
export function makeApplyReports(deps: ApplyReportsDeps) {
  return async function apply(
    channel: Channel,
    items: (NormalisedReport | SandboxStatusReport)[],
  ): Promise<EventEnvelope[]> {
    const published: EventEnvelope[] = [];
    for (const item of items) {
      const event = item.kind === 'message' ? await received(channel, item) : await status(channel, item);
      if (event) published.push(event);
    }
    return published;
  };

  async function received(channel: Channel, message: ReceivedMessage): Promise<EventEnvelope | undefined> {
    const messageId = inboundMessageId(channel.channelId, message.provider, message.providerMessageId);
    const fresh = await deps.statuses.recordInbound({
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
    });
    if (!fresh) {
      deps.log.info('inbound message already received: no second event', { channelId: channel.channelId, messageId });
      return undefined;
    }
    const { kind: _kind, email, ...data } = message;
    return deps.events.publish({
      type: 'message.received',
      projectId: channel.projectId,
      companyId: channel.companyId,
      channel: { id: channel.channelId, type: channel.type, address: channel.address },
      data: { messageId, direction: 'inbound', ...data, to: message.to || channel.address, ...(email ?? {}) },
    });
  }

  async function status(
    channel: Channel,
    report: StatusReport | SandboxStatusReport,
  ): Promise<EventEnvelope | undefined> {
    if (report.status === 'ignored') return undefined;
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
      return undefined;
    }
    const changed = await deps.statuses.advance(messageId, {
      status: report.status,
      at: report.at,
      ...(report.error === undefined ? {} : { error: report.error }),
    });
    if (!changed) return undefined;
    return deps.events.publish({
      type: `message.${report.status}`,
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
    });
  }
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The id of a received message, derived from its provider id within the channel: the same report received twice
 * gets the same id, so its record's conditional write is the dedupe (a resent mail with the same Message-ID too).
 */
export function inboundMessageId(channelId: string, provider: string, providerMessageId: string): string {
  const digest = createHash('sha256').update(`${channelId}\n${provider}\n${providerMessageId}`).digest();
  let id = '';
  for (let i = 0; i < 20; i++) id += BASE36[digest[i]! % 36];
  return `msg_${id}`;
}
