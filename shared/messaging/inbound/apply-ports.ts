import type { EventPublisher } from '../../events/index.ts';
import type { ConversationStore } from '../conversation.ts';
import type { ListUnsubscribe } from '../list-unsubscribe.ts';
import type { MediaStore } from '../media.ts';
import type { MessageStatusStore } from '../message-status.ts';
import type { CollectMedia } from './collect-media.ts';
import type { StatusReport } from './report.ts';

/** What applying a provider's reports needs (./apply-reports.ts and each of its steps). */
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

/** A status report the sandbox makes: it names our message id (and its conversation), there is no provider id to look up. */
export type SandboxStatusReport = StatusReport & { messageId: string; conversationId?: string };

/** An event a report produced (or, after a crash, published again): its id and type. */
export interface ReportedEvent {
  id: string;
  type: string;
}
