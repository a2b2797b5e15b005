import { ConflictError, DomainError } from '../kernel/domain-error.ts';
import type { ErrorDetail } from '../kernel/validation/issues.ts';
import type { Channel } from './channel.ts';

/** The channel a custom token, an integration or a reported event refers to does not exist in the project. */
export class ChannelNotFoundError extends DomainError {
  readonly code = 'CHANNEL_NOT_FOUND';
  readonly channelId: string;

  constructor(channelId: string, message = `Channel ${channelId} does not exist in this project.`) {
    super(message);
    this.name = 'ChannelNotFoundError';
    this.channelId = channelId;
  }
}

/** A metered channel has no message credits left; nothing was charged. */
export class NoChannelCreditsError extends DomainError {
  readonly code = 'NO_CHANNEL_CREDITS';

  constructor() {
    super('This channel has no message credits left.');
    this.name = 'NoChannelCreditsError';
  }
}

/** The channel's provider failed to send (or ran out of time); the credit, if any, was given back. */
export class ProviderFailedError extends DomainError {
  readonly code = 'PROVIDER_FAILED';

  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ProviderFailedError';
  }
}

/** An inbound request's provider signature (or Meta's verify token) is missing or wrong: nothing was recorded. */
export class InvalidSignatureError extends DomainError {
  readonly code = 'INVALID_SIGNATURE';

  constructor(message = 'The request signature is missing or wrong.') {
    super(message);
    this.name = 'InvalidSignatureError';
  }
}

/** No message with this id on the caller's channel (unknown, expired, or another channel's). */
export class MessageNotFoundError extends DomainError {
  readonly code = 'MESSAGE_NOT_FOUND';

  constructor(messageId: string) {
    super(`Message ${messageId} does not exist on this channel.`);
    this.name = 'MessageNotFoundError';
  }
}

/** The sandbox's simulation routes serve sandbox channels only. */
export class NotSandboxChannelError extends ConflictError {
  constructor(channel: Pick<Channel, 'channelId' | 'provider'>) {
    super(`Channel ${channel.channelId} sends through ${channel.provider.kind}; only sandbox channels simulate.`);
    this.name = 'NotSandboxChannelError';
  }
}

/** A recipient of a send opted out of the channel: nothing was sent, nothing charged. */
export class RecipientOptedOutError extends DomainError {
  readonly code = 'RECIPIENT_OPTED_OUT';

  constructor(details: ErrorDetail[]) {
    super(
      details.length === 1
        ? 'The recipient opted out of this channel.'
        : `${details.length} recipients opted out of this channel.`,
      { details },
    );
    this.name = 'RecipientOptedOutError';
  }
}

/**
 * A free-form WhatsApp message outside the contact's 24-hour window: only a template may be sent.
 * `closedAt` (top level of the error body) is when the window closed, or null when the contact never wrote.
 */
export class WindowClosedError extends DomainError {
  readonly code = 'WINDOW_CLOSED';

  constructor(closedAt: string | null) {
    super(
      closedAt
        ? `The contact's 24-hour window closed at ${closedAt}: send a template instead.`
        : 'The contact has not written to this channel, so no free-form message may be sent: send a template instead.',
      { fields: { closedAt } },
    );
    this.name = 'WindowClosedError';
  }
}

/** A cancel or move of a message that is not scheduled (sent, failed, canceled, or sent at once): nothing changed. */
export class NotScheduledError extends DomainError {
  readonly code = 'NOT_SCHEDULED';

  constructor(messageId: string, status: string) {
    super(`Message ${messageId} is not scheduled (it is ${status}).`);
    this.name = 'NotScheduledError';
  }
}
