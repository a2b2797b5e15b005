import type { OutboxMark } from '../events/index.ts';
import type { ChannelType, ProviderKind } from './channel.ts';
import type { Page, PageRequest } from '../kernel/page.ts';

/** A message sent (or attempted) on a channel, as recorded once the provider answered. */
export interface MessageRecord {
  messageId: string;
  projectId: string;
  channelId: string;
  channelType: ChannelType;
  /** The custom integration whose token sent it. */
  integrationId: string;
  provider: ProviderKind;
  /** Recipient(s) as given: a phone number, or the `to` addresses of an email. */
  to: string | string[];
  /** The validated request payload (WhatsApp contact and routing data included: name, email, url, sector). */
  payload: Record<string, unknown>;
  /** True when long text fields of the payload were cut to keep the record under DynamoDB's item size. */
  payloadTruncated?: boolean;
  status: 'sent' | 'failed';
  providerMessageIds?: string[];
  /** Why the provider failed (for the record and the `message.failed` event; never a credential). */
  error?: string;
  sentAt: string;
  /** The conversation and its contact (the first recipient). */
  conversationId: string;
  contact: string;
  /** What the status record keeps of what was said. */
  text?: string;
  subject?: string;
  template?: { name: string; language: string };
  /** Email: the Message-IDs the provider gave, remembered with the conversation so replies find their thread. */
  threadIds?: string[];
  /**
   * Email: every address the mail went to (`to` and `bcc`, as contacts), remembered with its Message-ID: a bounce
   * report naming that Message-ID is believed for these addresses only.
   */
  mailRecipients?: string[];
}

/** An entry of a sandbox channel's outbox, as the management API lists it. */
export interface OutboxEntry {
  messageId: string;
  to: string | string[];
  payload: Record<string, unknown>;
  sentAt: string;
}

/** A page of the outbox; `nextCursor` (opaque) continues with older messages. */
export type OutboxPage = Page<OutboxEntry>;

/** Message records: one write per send, and a sandbox channel's outbox. */
export interface MessageLog {
  /** Records a send with its event's mark (on the message's status item): one write. */
  record(message: MessageRecord, mark: OutboxMark): Promise<void>;
  /** What a sandbox channel "sends": the entry in its outbox (one write, under the channel in time order). */
  deliverToOutbox(projectId: string, channelId: string, entry: OutboxEntry): Promise<void>;
  /** The channel's sandbox messages, newest first. */
  listOutbox(projectId: string, channelId: string, page: PageRequest): Promise<OutboxPage>;
}
