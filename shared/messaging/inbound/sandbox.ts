import type { ReportedEvent, SandboxStatusReport } from './apply-ports.ts';
import { NotFoundError, ValidationError } from '../../kernel/domain-error.ts';
import { newId } from '../../kernel/ids.ts';
import type { Channel } from '../channel.ts';
import { NotSandboxChannelError } from '../errors.ts';
import type { MessageStatusStore } from '../message-status.ts';
import type { ReceivedMessage } from './report.ts';
import { UNCHECKED_MAIL } from './ses.ts';

export interface SimulatedInbound {
  from: string;
  text: string;
  subject?: string;
  html?: string;
}

export interface SimulatedStatus {
  messageId: string;
  status: 'delivered' | 'read' | 'failed';
  error?: string;
}

/**
 * The sandbox standing in for a provider: a contact's reply, or a receipt for a message the channel
 * sent, built as a provider report would normalise and applied the same way (the same dedupe, forward-only rule
 * and events). Synchronous, so the caller gets the event id at once.
 */
export function makeSandboxSimulation(deps: {
  requireChannel(projectId: string, channelId: string): Promise<Channel>;
  statuses: Pick<MessageStatusStore, 'get'>;
  apply(channel: Channel, items: (ReceivedMessage | SandboxStatusReport)[]): Promise<ReportedEvent[]>;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());

  async function sandboxChannel(projectId: string, channelId: string): Promise<Channel> {
    const channel = await deps.requireChannel(projectId, channelId);
    if (channel.provider.kind !== 'sandbox') throw new NotSandboxChannelError(channel);
    return channel;
  }

  return {
    async inbound(projectId: string, channelId: string, input: SimulatedInbound): Promise<{ eventId: string }> {
      const channel = await sandboxChannel(projectId, channelId);
      if (channel.type === 'email' && input.subject === undefined)
        throw new ValidationError('A simulated email needs a subject.', [
          { path: 'subject', message: 'Required for email channels', code: 'invalid_type' },
        ]);
      const receivedAt = now().toISOString();
      const message: ReceivedMessage = {
        kind: 'message',
        provider: 'sandbox',
        providerMessageId: newId('sbx'),
        from: input.from,
        to: channel.address,
        text: input.text,
        receivedAt,
        ...(channel.type === 'email'
          ? {
              email: {
                subject: input.subject ?? '',
                ...(input.html === undefined ? {} : { html: input.html }),
                attachments: [],
                // The sandbox checks no sender: every email message.received carries the results.
                authentication: UNCHECKED_MAIL,
              },
            }
          : {}),
      };
      const [event] = await deps.apply(channel, [message]);
      return { eventId: event!.id };
    },

    async status(projectId: string, channelId: string, input: SimulatedStatus): Promise<{ eventId?: string }> {
      const channel = await sandboxChannel(projectId, channelId);
      const record = /^msg_[a-z0-9]{1,64}$/.test(input.messageId)
        ? await deps.statuses.get(input.messageId)
        : undefined;
      const ofThisChannel =
        record?.direction === 'outbound' && record.channelId === channelId && record.projectId === projectId;
      if (!ofThisChannel)
        throw new NotFoundError('message', `Message ${input.messageId} is not an outbound message of this channel.`);
      const [event] = await deps.apply(channel, [
        {
          kind: 'status',
          provider: 'sandbox',
          messageId: input.messageId,
          ...(record.conversationId ? { conversationId: record.conversationId } : {}),
          providerMessageId: input.messageId,
          status: input.status,
          at: now().toISOString(),
          ...(input.error === undefined ? {} : { error: input.error }),
        },
      ]);
      return event ? { eventId: event.id } : {};
    },
  };
}

export type SandboxSimulation = ReturnType<typeof makeSandboxSimulation>;
