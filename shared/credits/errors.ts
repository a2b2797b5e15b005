import { DomainError } from '../kernel/domain-error.ts';

/** The project has no bot credits left this month; nothing was charged (completion and extract). */
export class NoBotCreditsError extends DomainError {
  readonly code = 'NO_BOT_CREDITS';

  constructor() {
    super('The project has no bot credits left this month; nothing was charged.');
    this.name = 'NoBotCreditsError';
  }
}
