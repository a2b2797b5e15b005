import { markOf, type EventPublisher } from '../events/index.ts';
import { NotFoundError, ValidationError } from '../kernel/domain-error.ts';
import type { Page, PageRequest } from '../kernel/page.ts';
import type { Channel } from './channel.ts';
import {
  type ConversationStore,
  conversationIdOf,
  type ConversationWindow,
  normaliseContact,
  type Suppression,
  windowOf,
} from './conversation.ts';
import type { MediaStore } from './media.ts';
import { messageView } from './message-status.ts';

export interface ConversationQueriesDeps {
  conversations: Pick<
    ConversationStore,
    'state' | 'listMessages' | 'listSuppressions' | 'changeSuppression' | 'clearSuppressionEvent'
  >;
  media: Pick<MediaStore, 'url'>;
  events: Pick<EventPublisher, 'prepare' | 'send'>;
  /** Where a failure that does not change the answer is reported (the events queue down: the sweep publishes). */
  onBackgroundError: (what: string, cause: unknown) => void;
  now?: () => Date;
}

/** `GET /api/integration/conversations/{contact}`. */
export interface ConversationView {
  conversationId: string;
  contact: string;
  /** WhatsApp only. */
  window?: ConversationWindow;
  optedOut: boolean;
}

/**
 * A channel's conversations as its custom token (and the console) sees them, and its suppressions as the
 * management API manages them. `contact` is taken as the channel writes addresses (a WhatsApp number with or
 * without `+`, an SMS number in E.164, any case of an email address); anything else is 400 `VALIDATION_ERROR`.
 */
export function makeConversationQueries(deps: ConversationQueriesDeps) {
  const now = deps.now ?? (() => new Date());

  function contactOf(channel: Channel, raw: string): string {
    const contact = normaliseContact(channel.type, raw);
    if (!contact)
      throw new ValidationError(`Not a ${channel.type} contact.`, [
        {
          path: 'contact',
          message:
            channel.type === 'email'
              ? 'An email address'
              : channel.type === 'sms'
                ? 'A phone number in E.164: + then 8 to 15 digits'
                : 'A phone number: 8 to 15 digits',
          code: 'invalid_format',
        },
      ]);
    return contact;
  }

  return {
    contactOf,

    /** Whether free-form messages are allowed (WhatsApp) and whether the contact opted out: one BatchGetItem. */
    async conversation(channel: Channel, raw: string): Promise<ConversationView> {
      const contact = contactOf(channel, raw);
      const state = await deps.conversations.state(channel.projectId, channel.channelId, contact);
      return {
        conversationId: conversationIdOf(channel.channelId, contact),
        contact,
        ...(channel.type === 'whatsapp' ? { window: windowOf(state.lastInboundAt, now()) } : {}),
        optedOut: state.suppression !== undefined,
      };
    },

    /** The conversation's messages, both directions, newest first; media URLs signed now. */
    async messages(channel: Channel, raw: string, page: PageRequest) {
      const contact = contactOf(channel, raw);
      const out = await deps.conversations.listMessages(channel.projectId, channel.channelId, contact, page);
      const at = now();
      return { ...out, items: await Promise.all(out.items.map((m) => messageView(m, deps.media, at))) };
    },

    /** The channel's suppressed contacts, in contact order. */
    suppressions(channel: Channel, page: PageRequest): Promise<Page<Suppression>> {
      return deps.conversations.listSuppressions(channel.projectId, channel.channelId, page);
    },

    /** One suppressed contact (404 NOT_FOUND when the contact is not suppressed). */
    async suppression(channel: Channel, raw: string): Promise<Suppression> {
      const contact = contactOf(channel, raw);
      const { suppression } = await deps.conversations.state(channel.projectId, channel.channelId, contact);
      if (!suppression) throw new NotFoundError('suppression', `${contact} is not suppressed on this channel.`);
      return suppression;
    },

    /**
     * Lifts a suppression through the management API: `contact.opted_in` with `reason: "admin"`, written with the
     * change; 404 NOT_FOUND when the contact is not suppressed.
     */
    async removeSuppression(channel: Channel, raw: string): Promise<void> {
      const contact = contactOf(channel, raw);
      const at = now();
      const prepared = await deps.events.prepare(
        {
          type: 'contact.opted_in',
          projectId: channel.projectId,
          companyId: channel.companyId,
          channel: { id: channel.channelId, type: channel.type, address: channel.address },
          data: { contact, conversationId: conversationIdOf(channel.channelId, contact), reason: 'admin' },
        },
        { key: `contact.opted_in:${channel.channelId}:${contact}:admin:${at.getTime()}`, at },
      );
      const changed = await deps.conversations.changeSuppression({
        projectId: channel.projectId,
        channelId: channel.channelId,
        contact,
        order: `${at.toISOString()}#admin`,
        force: true,
        mark: markOf(prepared),
      });
      if (!changed) throw new NotFoundError('suppression', `${contact} is not suppressed on this channel.`);
      try {
        await deps.events.send(prepared.message);
        await deps.conversations.clearSuppressionEvent(
          channel.projectId,
          channel.channelId,
          contact,
          prepared.message.eventId,
        );
      } catch (cause) {
        // Marked with the change: the sweep publishes it (same id) once the queue answers.
        deps.onBackgroundError('event publish', cause);
      }
    },
  };
}

export type ConversationQueries = ReturnType<typeof makeConversationQueries>;
