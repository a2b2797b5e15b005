import { DomainError } from '../kernel/domain-error.ts';

/** Over a tenant's limit (a project's sends or events a second, a custom token's requests): nothing was done. */
export class RateLimitedError extends DomainError {
  readonly code = 'RATE_LIMITED';

  constructor(message: string, retryAfterSeconds: number) {
    super(message, { retryAfterSeconds });
    this.name = 'RateLimitedError';
  }
}
