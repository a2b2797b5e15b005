import type { Channel } from '../channel.ts';
import { type ConversationStore, keywordIntent, normaliseContact, type Suppression } from '../conversation.ts';
import { type ListUnsubscribe, UNSUBSCRIBE_SUBJECT } from '../list-unsubscribe.ts';
import type { DeliveryStatusReport } from './dsn.ts';
import type { ReceivedMessage } from './report.ts';

/** A change of a contact's suppression a received message asks for: opt out (`suppression`) or back in (`keyword`). */
export interface SuppressionStep {
  contact: string;
  suppression?: Suppression;
  /** The opt-in keyword the contact wrote. */
  keyword?: string;
}

export interface OptOutDeps {
  /** Which addresses a mail this channel sent went to, by its Message-ID. */
  conversations: Pick<ConversationStore, 'sentMail'>;
  /** Recognises the channel's per-recipient unsubscribe addresses. */
  unsubscribe: Pick<ListUnsubscribe, 'isAddressOf'>;
  log: { info(message: string, extra?: Record<string, unknown>): void };
}

/**
 * What a received message changes in its channel's suppressions, believing only what cannot be forged:
 * - SMS and WhatsApp: an opt-out or opt-in keyword as the whole message (the provider vouches for the sender);
 * - a delivery status notification: the hard bounces of recipients of a mail this channel sent under the Message-ID
 *   it names (a Message-ID the channel only received never counts, and an address that mail did not go to is not
 *   suppressed);
 * - a mailed unsubscribe: a mail to the per-recipient unsubscribe address the channel put on its mail to the sender
 *   (../list-unsubscribe.ts), or a mail with the subject `unsubscribe` whose sender the receiving side verified: DMARC
 *   `pass`, or DKIM `pass` with every signature from the `From` domain (or a parent of it).
 * Anything else changes nothing: it is an ordinary `message.received`.
 */
export function makeSuppressionChanges(deps: OptOutDeps) {
  return async function suppressionChanges(
    channel: Channel,
    message: ReceivedMessage,
    contact: string,
  ): Promise<SuppressionStep[]> {
    const at = message.receivedAt;
    const intent = keywordIntent(channel, message.text);
    if (intent)
      return [
        intent.intent === 'opt_out'
          ? { contact, suppression: { contact, reason: 'keyword', at, keyword: intent.keyword } }
          : { contact, keyword: intent.keyword },
      ];
    const email = message.email;
    if (!email) return [];
    if (email.deliveryStatus) return bounces(channel, email.deliveryStatus, at);
    if (!unsubscribes(channel, message, contact)) return [];
    return [{ contact, suppression: { contact, reason: 'keyword', at, keyword: UNSUBSCRIBE_SUBJECT } }];
  };

  async function bounces(channel: Channel, report: DeliveryStatusReport, at: string): Promise<SuppressionStep[]> {
    if (!report.hardBounces.length) return [];
    const original = report.originalMessageId;
    const sentTo = original ? await deps.conversations.sentMail(channel.channelId, original) : undefined;
    if (!sentTo) {
      deps.log.info('bounce report about a mail this channel did not send: no suppression', {
        channelId: channel.channelId,
        recipients: report.hardBounces.length,
      });
      return [];
    }
    const mailed = new Set(sentTo);
    const bounced = new Set<string>();
    for (const bounce of report.hardBounces) {
      // The address the channel wrote, when the report names it (a forwarded mail bounces at its final address).
      const contact = [bounce.originalRecipient, bounce.recipient].find((a) => a !== undefined && mailed.has(a));
      if (contact) bounced.add(contact);
    }
    if (bounced.size < report.hardBounces.length)
      deps.log.info('bounce report names addresses the mail did not go to: those are not suppressed', {
        channelId: channel.channelId,
        named: report.hardBounces.length,
        suppressed: bounced.size,
      });
    return [...bounced].map((contact) => ({ contact, suppression: { contact, reason: 'bounce' as const, at } }));
  }

  function unsubscribes(channel: Channel, message: ReceivedMessage, contact: string): boolean {
    const email = message.email!;
    if (!normaliseContact('email', contact)) return false;
    if ((email.envelopeTo ?? []).some((address) => deps.unsubscribe.isAddressOf(channel, address, contact)))
      return true;
    if (email.subject.trim().toLowerCase() !== UNSUBSCRIBE_SUBJECT) return false;
    if (senderVerified(email, contact)) return true;
    deps.log.info('unsubscribe mail from an unverified sender: no suppression', { channelId: channel.channelId });
    return false;
  }
}

/**
 * Whether the receiving side vouches for the `From` address: DMARC passed (it checks alignment with `From` itself),
 * or DKIM passed and every signature is by the `From` domain or a parent of it (SES's verdict does not say which
 * signature passed, so an unaligned one among them counts against it).
 */
function senderVerified(email: NonNullable<ReceivedMessage['email']>, from: string): boolean {
  const auth = email.authentication;
  if (auth?.dmarc === 'pass') return true;
  if (auth?.dkim !== 'pass') return false;
  const domain = from.slice(from.lastIndexOf('@') + 1);
  const signedBy = email.signedBy ?? [];
  return signedBy.length > 0 && signedBy.every((d) => d.includes('.') && (domain === d || domain.endsWith(`.${d}`)));
}

/**
 * The order of a change of a contact's suppression: the later provider time wins; at the same provider time an
 * opt-out wins over an opt-in; then the order the service accepted the reports in (`arrival`, else the provider
 * time), then what caused it. Compared as text by the store, so a late or retried report never undoes a later change.
 */
export function suppressionOrder(message: ReceivedMessage, step: SuppressionStep, causeId: string): string {
  return `${message.receivedAt}#${step.suppression ? 1 : 0}#${message.arrival ?? ''}#${causeId}`;
}

/**
 * Marks each received message with where its report stands in the order the service accepted reports: `acceptedAt`
 * (epoch ms), then its place in the report (a WhatsApp webhook may carry several).
 */
export function withArrival<T extends { kind: string }>(items: T[], acceptedAt: number): T[] {
  const at = String(Math.max(0, Math.floor(acceptedAt))).padStart(15, '0');
  return items.map((item, i) =>
    item.kind === 'message' ? { ...item, arrival: `${at}.${String(i).padStart(4, '0')}` } : item,
  );
}
