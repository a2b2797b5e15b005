import { ValidationError } from '../kernel/domain-error.ts';
import type { ErrorDetail } from '../kernel/validation/issues.ts';
import type { Channel } from './channel.ts';
import { conversationIdOf, normaliseContact, type SendLookup, type SendLookupKeys, windowOf } from './conversation.ts';
import { RecipientOptedOutError, WindowClosedError } from './errors.ts';
import { messageIdsIn } from './mail-threads.ts';
import { type SendPayload, validateSendPayload } from './payloads.ts';

/**
 * The checks a send makes before it charges, on what it read with the channel: the payload fits the channel's type
 * (400), no recipient opted out (409 RECIPIENT_OPTED_OUT), a WhatsApp free-form message is inside the contact's
 * window (409 WINDOW_CLOSED). A batch runs them on each item; a deferred send runs them again when it leaves.
 */
export function checkSend(
  lookup: SendLookup,
  body: unknown,
  at: Date,
): { channel: Channel; message: SendPayload; conversation: { conversationId: string; contact: string } } {
  const channel = lookup.channel;
  const validation = validateSendPayload(channel.type, body);
  if (!validation.ok)
    throw new ValidationError(`The payload is invalid for a ${channel.type} channel.`, validation.details);
  const message = validation.value;
  const conversation = conversationOf(channel, message, lookup);
  const optedOut = optedOutRecipients(channel, message, lookup);
  if (optedOut.length) throw new RecipientOptedOutError(optedOut);
  if (message.type === 'whatsapp' && message.payload.template === undefined) {
    const window = windowOf(lookup.lastInbound.get(conversation.contact), at);
    if (!window.open) throw new WindowClosedError(window.closesAt);
  }
  return { channel, message, conversation };
}

/** The longest list of addresses a send may name (email: 50 `to` and 50 `bcc`). */
const MAX_LOOKUP_CONTACTS = 101;
/** Threads looked up per send: `inReplyTo` and the last `references` (the nearest ancestors). */
const MAX_LOOKUP_THREADS = 20;

/**
 * What the send reads with the channel, from the body as it came (its channel type is not known yet: the token says
 * only which channel): `number` (WhatsApp) for its window and suppression, `to` / `bcc` for suppressions, and the
 * Message-IDs a mail replies to. Keys of the wrong type for the channel are read for nothing, in the same request.
 */
export function sendLookupKeys(body: unknown): SendLookupKeys {
  const input = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const strings = (value: unknown): string[] =>
    (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v.length <= 320);
  const windowContacts: string[] = [];
  const suppressionContacts = new Set<string>();
  for (const number of strings(input.number)) {
    const contact = normaliseContact('whatsapp', number);
    if (contact) {
      windowContacts.push(contact);
      suppressionContacts.add(contact);
    }
  }
  for (const address of [...strings(input.to), ...strings(input.bcc)]) {
    const contact = normaliseContact(address.includes('@') ? 'email' : 'sms', address);
    if (contact) suppressionContacts.add(contact);
  }
  const threadIds = [
    ...strings(input.inReplyTo).flatMap(messageIdsIn),
    ...strings(input.references).flatMap(messageIdsIn).reverse(),
  ].slice(0, MAX_LOOKUP_THREADS);
  return {
    windowContacts: windowContacts.slice(0, 1),
    suppressionContacts: [...suppressionContacts].slice(0, MAX_LOOKUP_CONTACTS),
    threadIds: [...new Set(threadIds)],
  };
}

/** Every address the message goes to, as the channel writes contacts. */
export function recipientContacts(channel: Channel, message: SendPayload): { path: string; contact: string }[] {
  const out: { path: string; contact: string }[] = [];
  const add = (path: string, raw: string) => {
    const contact = normaliseContact(channel.type, raw);
    if (contact) out.push({ path, contact });
  };
  switch (message.type) {
    case 'whatsapp':
      add('number', message.payload.number);
      break;
    case 'sms':
      add('to', message.payload.to);
      break;
    case 'email':
      for (const field of ['to', 'bcc'] as const) {
        const list = message.payload[field] ?? [];
        for (const [i, address] of list.entries()) add(list.length > 1 ? `${field}.${i}` : field, address);
      }
      break;
  }
  return out;
}

/** Each recipient that opted out of the channel, as a `details[]` entry. */
function optedOutRecipients(channel: Channel, message: SendPayload, lookup: SendLookup): ErrorDetail[] {
  return recipientContacts(channel, message).flatMap(({ path, contact }) => {
    const suppression = lookup.suppressed.get(contact);
    if (!suppression) return [];
    const why = suppression.reason === 'bounce' ? 'mail to it bounced' : `it opted out (${suppression.reason})`;
    return [
      { path, message: `${contact} is suppressed on this channel: ${why} at ${suppression.at}`, code: 'opted_out' },
    ];
  });
}

/**
 * The send's conversation: the contact is the first recipient; a mail that replies to one this channel
 * knows (`inReplyTo`, then `references` nearest first) joins that mail's conversation.
 */
function conversationOf(
  channel: Channel,
  message: SendPayload,
  lookup: SendLookup,
): { conversationId: string; contact: string } {
  const first = recipientContacts(channel, message)[0];
  const raw = recipient(message);
  const contact = first?.contact ?? (Array.isArray(raw) ? raw[0]! : raw);
  if (message.type === 'email') {
    const replyTo = [
      ...(message.payload.inReplyTo ? messageIdsIn(message.payload.inReplyTo) : []),
      ...(message.payload.references ?? []).flatMap(messageIdsIn).reverse(),
    ];
    for (const id of replyTo) {
      const conversationId = lookup.threads.get(id);
      if (conversationId) return { conversationId, contact };
    }
  }
  return { conversationId: conversationIdOf(channel.channelId, contact), contact };
}

/** The message's recipient as the payload names it (one address, or a mail's `to` list). */
export function recipient(message: SendPayload): string | string[] {
  switch (message.type) {
    case 'whatsapp':
      return message.payload.number;
    case 'email':
      return message.payload.to;
    case 'sms':
      return message.payload.to;
  }
}

/** What every body names, read with the channel in one go (a batch's items, or a group of queued sends). */
export function mergedLookupKeys(bodies: readonly unknown[]): SendLookupKeys {
  const window = new Set<string>();
  const suppression = new Set<string>();
  const threads = new Set<string>();
  for (const body of bodies) {
    const keys = sendLookupKeys(body);
    for (const c of keys.windowContacts) window.add(c);
    for (const c of keys.suppressionContacts) suppression.add(c);
    for (const t of keys.threadIds) threads.add(t);
  }
  return { windowContacts: [...window], suppressionContacts: [...suppression], threadIds: [...threads] };
}
