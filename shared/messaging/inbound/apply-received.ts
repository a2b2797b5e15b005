import { createHash } from 'node:crypto';
import { markOf } from '../../events/index.ts';
import { failpoint } from '../../kernel/failpoints.ts';
import type { Channel } from '../channel.ts';
import { conversationIdOf, normaliseContact } from '../conversation.ts';
import { messageIdsIn } from '../mail-threads.ts';
import { type MediaStore, mediaView, type StoredMedia } from '../media.ts';
import { previewOf } from '../message-status.ts';
import type { ApplyReportsDeps, ReportedEvent } from './apply-ports.ts';
import type { makeSuppressionSteps } from './apply-suppression.ts';
import type { MarkedEvents } from './marked-events.ts';
import { makeSuppressionChanges, suppressionOrder } from './opt-outs.ts';
import type { ReceivedMessage } from './report.ts';

/**
 * A received message: 1. WhatsApp: the contact's window moves to this message (before its
 * event is out, so a reply sent on `message.received` finds the window open); 2. its conversation (mail: the thread
 * its `In-Reply-To` / `References` name, remembered under its own Message-ID for the replies to come); 3. its media
 * fetched and stored; 4. recorded once with `message.received` marked; 5. an opt-out or opt-in keyword, a mailed
 * unsubscribe or a hard bounce changes a suppression when it is believable (./opt-outs.ts), each change with its
 * own event.
 * Each step is safe to repeat: a retried report redoes 1-3 to the same result and republishes only what is marked.
 */
export function makeApplyReceived(
  deps: ApplyReportsDeps & { now: () => Date },
  marks: Pick<MarkedEvents, 'publishMarked' | 'republish'>,
  suppressions: Pick<ReturnType<typeof makeSuppressionSteps>, 'changeSuppression'>,
) {
  const { now } = deps;
  const suppressionChanges = makeSuppressionChanges(deps);

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
      published.push(...(await marks.republish(messageId, 'message.received')));
    } else {
      await marks.publishMarked(messageId, prepared);
      published.push({ id: prepared.envelope.id, type: prepared.envelope.type });
    }
    for (const change of await suppressionChanges(channel, message, contact))
      published.push(
        ...(await suppressions.changeSuppression(
          channel,
          messageId,
          suppressionOrder(message, change, messageId),
          change,
        )),
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

  return received;
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

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
