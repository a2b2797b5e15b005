import type { DomainErrorCode, ErrorCode } from '../../contract/error-codes.ts';
import { DomainError } from '../../kernel/domain-error.ts';
import type { ErrorDetail } from '../../kernel/validation/issues.ts';

/** The code a synchronous send would have answered with, for the refusals a send can meet. */
const SEND_ANSWER_CODES: Partial<Record<DomainErrorCode, ErrorCode>> = {
  INVALID_INPUT: 'VALIDATION_ERROR',
  CHANNEL_NOT_FOUND: 'CHANNEL_NOT_FOUND',
  RECIPIENT_OPTED_OUT: 'RECIPIENT_OPTED_OUT',
  WINDOW_CLOSED: 'WINDOW_CLOSED',
  NO_CHANNEL_CREDITS: 'PROVIDER_ERROR',
  PROVIDER_FAILED: 'PROVIDER_ERROR',
};

/** A refusal as a batch item and a `message.failed` event carry it. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
}

/** The refusal a send's domain error stands for; undefined for an error no send answers (an outage). */
export function refusalOf(error: unknown): Refusal | undefined {
  if (!(error instanceof DomainError)) return undefined;
  const code = SEND_ANSWER_CODES[error.code];
  if (!code) return undefined;
  return { code, message: error.message, ...(error.details?.length ? { details: error.details } : {}) };
}
