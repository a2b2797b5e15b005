import { DomainError } from '../errors/domain-error.ts';

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
