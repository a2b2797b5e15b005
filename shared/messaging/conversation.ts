import { createHash } from 'node:crypto';
import type { OutboxMark } from '../events/index.ts';
import type { Page, PageRequest } from '../kernel/page.ts';
import type { Channel, ChannelType } from './channel.ts';
import type { MessageStatusRecord } from './message-status.ts';

/**
 * Conversations: one per channel and contact, with WhatsApp's 24-hour customer-service window and the
 * contact's opt-out. A contact is written as the channel writes addresses: WhatsApp digits without `+`, SMS E.164
 * with `+`, email a lowercased address.
 */

/** How long after a contact's last message WhatsApp takes free-form messages (Meta's customer-service window). */
export const WINDOW_MS = 24 * 60 * 60 * 1000;

/** Opt-out keywords when a channel sets none: the whole message, any case. */
export const DEFAULT_OPT_OUT_KEYWORDS = ['STOP', 'PARAR', 'SAIR', 'CANCELAR', 'UNSUBSCRIBE'] as const;
/** Opt-in keywords when a channel sets none. */
export const DEFAULT_OPT_IN_KEYWORDS = ['START', 'VOLTAR'] as const;

/** The channel types whose contacts opt out by keyword (email contacts by bounce or by mail to their own List-Unsubscribe address). */
export const KEYWORD_CHANNEL_TYPES: readonly ChannelType[] = ['sms', 'whatsapp'];

/**
 * A contact as this channel type writes it, or undefined when it cannot be one: WhatsApp 8 to 15 digits (a leading
 * `+` dropped), SMS `+` and 8 to 15 digits (one without `+` gets it), email a valid-looking address, lowercased.
 */
export function normaliseContact(type: ChannelType, raw: string): string | undefined {
  const value = raw.trim();
  switch (type) {
    case 'whatsapp': {
      const digits = value.startsWith('+') ? value.slice(1) : value;
      return /^\d{8,15}$/.test(digits) ? digits : undefined;
    }
    case 'sms': {
      const e164 = value.startsWith('+') ? value : `+${value}`;
      return /^\+\d{8,15}$/.test(e164) ? e164 : undefined;
    }
    case 'email': {
      const lower = value.toLowerCase();
      return lower.length <= 320 && /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(lower) ? lower : undefined;
    }
  }
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

function digestId(prefix: string, text: string): string {
  const digest = createHash('sha256').update(text).digest();
  let id = '';
  for (let i = 0; i < 20; i++) id += BASE36[digest[i]! % 36];
  return `${prefix}_${id}`;
}

/**
 * The conversation id of a channel and contact: derived, not stored, so every producer (the send, the inbound worker,
 * a status report) names the same conversation without a read. Email threads found by `In-Reply-To` / `References`
 * carry the id of the conversation their first message had.
 */
export function conversationIdOf(channelId: string, contact: string): string {
  return digestId('conv', `${channelId}\n${contact}`);
}

/** Whether free-form messages are allowed now, from the contact's last inbound message (WhatsApp only). */
export interface ConversationWindow {
  open: boolean;
  /** When the window closes (open) or closed (closed); null when the contact never wrote. */
  closesAt: string | null;
}

export function windowOf(lastInboundAt: string | undefined, now: Date): ConversationWindow {
  if (!lastInboundAt) return { open: false, closesAt: null };
  const closes = Date.parse(lastInboundAt) + WINDOW_MS;
  return { open: now.getTime() < closes, closesAt: new Date(closes).toISOString() };
}

/** Why a contact is suppressed. */
export type SuppressionReason = 'keyword' | 'bounce' | 'complaint' | 'admin';

/** A contact the channel must not send to. */
export interface Suppression {
  contact: string;
  reason: SuppressionReason;
  /** ISO 8601: when the contact opted out. */
  at: string;
  /** The keyword the contact wrote (reason `keyword`). */
  keyword?: string;
}

/** The keyword lists a channel answers to (its own, or the defaults). */
export function keywordsOf(channel: Pick<Channel, 'optOutKeywords' | 'optInKeywords'>): {
  optOut: readonly string[];
  optIn: readonly string[];
} {
  return {
    optOut: channel.optOutKeywords ?? DEFAULT_OPT_OUT_KEYWORDS,
    optIn: channel.optInKeywords ?? DEFAULT_OPT_IN_KEYWORDS,
  };
}

/**
 * What a received message's text asks for: `opt_out` or `opt_in` when the whole message (trimmed, any case) is one
 * of the channel's keywords, with the keyword as the channel lists it.
 */
export function keywordIntent(
  channel: Pick<Channel, 'type' | 'optOutKeywords' | 'optInKeywords'>,
  text: string,
): { intent: 'opt_out' | 'opt_in'; keyword: string } | undefined {
  if (!KEYWORD_CHANNEL_TYPES.includes(channel.type)) return undefined;
  const said = text.trim().toUpperCase();
  if (!said || said.length > 64) return undefined;
  const { optOut, optIn } = keywordsOf(channel);
  const out = optOut.find((k) => k.toUpperCase() === said);
  if (out) return { intent: 'opt_out', keyword: out };
  const back = optIn.find((k) => k.toUpperCase() === said);
  return back ? { intent: 'opt_in', keyword: back } : undefined;
}

/** Checks a keyword list given on a channel; undefined when it is fine. */
export function keywordListProblem(list: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const keyword of list) {
    const key = keyword.trim().toUpperCase();
    if (seen.has(key)) return `"${keyword}" is listed twice`;
    seen.add(key);
  }
  return undefined;
}

/**
 * What the send reads with the channel, in the same request (one BatchGetItem): the last inbound time of each
 * WhatsApp contact the body names, the suppressions among its addresses, and the conversations of the mail threads
 * it replies to.
 */
export interface SendLookup {
  channel: Channel;
  /** Contact → ISO time of their last inbound message on the channel. */
  lastInbound: ReadonlyMap<string, string>;
  /** Contact → their suppression (lifted ones are not here). */
  suppressed: ReadonlyMap<string, Suppression>;
  /** Mail `Message-ID` (as written in headers, with its angle brackets) → conversation id. */
  threads: ReadonlyMap<string, string>;
}

/** What a send asks to read besides the channel (every value as the body gives it, normalised where it can be). */
export interface SendLookupKeys {
  /** Contacts whose window is checked (WhatsApp `number`). */
  windowContacts: string[];
  /** Contacts whose suppression is checked (every address the body sends to). */
  suppressionContacts: string[];
  /** Message-IDs an email replies to (`inReplyTo`, `references`). */
  threadIds: string[];
}

/** An entry of a conversation's message listing (newest first). */
export type ConversationMessage = MessageStatusRecord;

/** A change of a contact's opt-out state, with the event it produces. */
export interface SuppressionChange {
  projectId: string;
  channelId: string;
  contact: string;
  /** Set: the contact opts out; undefined: their opt-out is lifted. */
  suppression?: Suppression;
  /**
   * Orders changes: a change applies only over an older one (`<at ISO>#<what caused it>`), so a retried or late
   * report never undoes a later change.
   */
  order: string;
  /** The management API's change: applies whatever the order (a contact's clock is not the operator's). */
  force?: boolean;
  mark: OutboxMark;
}

/** Conversations, suppressions and mail threads. */
export interface ConversationStore {
  /** The channel and what the send must know of its contacts, in one request; undefined when the channel is gone. */
  lookupForSend(projectId: string, channelId: string, keys: SendLookupKeys): Promise<SendLookup | undefined>;
  /** The contact's last inbound time and opt-out, for the conversation route. */
  state(
    projectId: string,
    channelId: string,
    contact: string,
  ): Promise<{ lastInboundAt?: string; suppression?: Suppression }>;
  /** Moves the contact's last inbound time forward to `at` (never back): one conditional write. */
  touchInbound(channelId: string, contact: string, at: string): Promise<void>;
  /** The conversation ids of mail threads by their Message-IDs (those known on this channel). */
  threads(channelId: string, messageIds: string[]): Promise<Map<string, string>>;
  /**
   * The addresses a mail this channel sent under this Message-ID went to; undefined when the channel sent no mail
   * under it (a received mail's Message-ID included).
   */
  sentMail(channelId: string, messageId: string): Promise<string[] | undefined>;
  /** Records that a mail with this Message-ID belongs to a conversation (for replies to find it). */
  rememberThread(channelId: string, messageId: string, conversationId: string, at: string): Promise<void>;
  /**
   * Applies an opt-out (or lifts one) with its event's mark in the same conditional write: false when nothing changed
   * (already in that state, or a later change was applied). A change that finds the contact already in its state
   * still records its order when it is the later one, so an older change delivered after it does not apply.
   */
  changeSuppression(change: SuppressionChange): Promise<boolean>;
  /** The marks still pending on a contact's suppression item (a crash came between a change and its publish). */
  pendingSuppressionEvents(
    projectId: string,
    channelId: string,
    contact: string,
  ): Promise<{ eventId: string; message: string }[]>;
  clearSuppressionEvent(projectId: string, channelId: string, contact: string, eventId: string): Promise<void>;
  /** The channel's suppressed contacts, in contact order. */
  listSuppressions(projectId: string, channelId: string, page: PageRequest): Promise<Page<Suppression>>;
  /** A conversation's messages, newest first. */
  listMessages(
    projectId: string,
    channelId: string,
    contact: string,
    page: PageRequest,
  ): Promise<Page<ConversationMessage>>;
}
