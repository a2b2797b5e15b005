import { createHash } from 'node:crypto';
import { messageGroupIdOf } from '../../events/index.ts';
import { parseBoundedJson } from '../../kernel/json-shape.ts';
import type { Channel, ChannelType } from '../channel.ts';
import { normaliseContact } from '../conversation.ts';
import type { InboundReport, NormalisedReport } from './report.ts';
import { normaliseTwilio } from './twilio.ts';
import { normaliseWhatsApp } from './whatsapp.ts';

/**
 * Where an accepted report waits on the ordered lane (the FIFO `inboundOrdered` queue): in the message group of its
 * channel and contact, so one contact's reports are worked, and their events published, in the order they were
 * acknowledged, while other contacts' go on beside them. A group carries one person's pace (their messages, the
 * receipts of what was sent to them), far below a FIFO group's 300 calls a second.
 */
export interface OrderedReport {
  report: InboundReport;
  /** The contact whose group carries it, as the channel writes addresses; `''` when the report names none. */
  contact: string;
}

/** The contact a normalised item is about: the sender of a message, the recipient of a status; `''` if unnamed. */
export function contactOfItem(type: ChannelType, item: NormalisedReport): string {
  const raw = item.kind === 'message' ? item.from : item.kind === 'status' ? item.recipient : item.contacts[0];
  if (!raw?.trim()) return '';
  return normaliseContact(type, raw) ?? raw.trim();
}

/** Whether an item of a report is one this copy of it works ({@link InboundReport.contact}). */
export function isFor(report: InboundReport, channel: Pick<Channel, 'type'>, item: NormalisedReport): boolean {
  return report.contact === undefined || contactOfItem(channel.type, item) === report.contact;
}

/**
 * The copies of an accepted provider callback for the ordered lane: one per contact its items name. A report about
 * one contact (or none) is queued whole in that contact's group; one about several (Meta may batch) once per
 * contact, each copy worked for that contact's items only, so no contact's order waits on, or is broken by, another's.
 * A body that does not parse goes whole to the channel's own group, where the worker logs it.
 */
export function orderedCopies(report: InboundReport, channel: Channel, raw: Buffer): OrderedReport[] {
  const items = itemsOf(report, channel, raw);
  const contacts = items ? [...new Set(items.map((i) => contactOfItem(channel.type, i)))] : [];
  if (contacts.length <= 1) return [{ report, contact: contacts[0] ?? '' }];
  return contacts.map((contact) => ({ report: { ...report, contact }, contact }));
}

/** The items a callback carries, read as the worker will read them; undefined when it does not parse. */
function itemsOf(report: InboundReport, channel: Channel, raw: Buffer): NormalisedReport[] | undefined {
  try {
    if (report.source === 'twilio') {
      const item = normaliseTwilio(
        new URLSearchParams(raw.toString('utf8')),
        new Date(report.receivedAt).toISOString(),
      );
      return item ? [item] : [];
    }
    if (report.source === 'whatsapp-cloud' && channel.provider.kind === 'whatsapp-cloud')
      return normaliseWhatsApp(parseBoundedJson(raw.toString('utf8')), channel.provider.phoneNumberId);
  } catch {
    // Not a callback at all: the worker says so in its log.
  }
  return undefined;
}

/**
 * The sender of an SES receipt notification (its `From` header as SES read it, else the envelope sender): the
 * contact whose group a received mail waits in. Only a grouping: the mail's own parsing decides its conversation.
 */
export function senderOfMailNotification(notification: unknown): string {
  // biome-ignore lint/suspicious/noExplicitAny: SES's notification, untrusted, read field by field.
  const mail = (notification as { mail?: Record<string, any> } | null)?.mail;
  const from: unknown = Array.isArray(mail?.commonHeaders?.from) ? mail.commonHeaders.from[0] : undefined;
  const written = typeof from === 'string' ? (/<([^<>]*)>\s*$/.exec(from)?.[1] ?? from) : undefined;
  const candidate = written ?? (typeof mail?.source === 'string' ? mail.source : '');
  return normaliseContact('email', candidate) ?? '';
}

/** The FIFO message group of a contact of a channel (the channel's own group for reports naming no contact). */
export function orderedGroupId(channelId: string, contact: string): string {
  return messageGroupIdOf(channelId, contact ? `contact:${contact}` : 'channel');
}

/**
 * The FIFO deduplication id of a copy: the same bytes from the same channel for the same contact are the same report
 * (a provider's retry within SQS's five minutes is dropped there; later, the worker's conditional writes drop it).
 */
export function orderedDeduplicationId(copy: OrderedReport): string {
  const { report, contact } = copy;
  return createHash('sha256')
    .update(`${report.channelId}\n${contact}\n${report.body ?? report.bodyRef ?? report.receivedAt}`)
    .digest('base64url');
}
