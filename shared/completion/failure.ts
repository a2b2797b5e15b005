import type { Charge } from '../credits/index.ts';
import { ValidationError } from '../kernel/domain-error.ts';
import { ModelError } from '../models/index.ts';
import { InvalidAnswer, isChargedAnswer } from './answer.ts';
import type { CompletionLog } from './completion.ts';
import { GenerationFailedError, GenerationTimeoutError } from './errors.ts';
import { CallerGone, DeadlineReached } from './generation-call.ts';

/** What a failed completion costs the caller, and how it reads. */

/**
 * The charge of a completion that failed. Kept: the caller left once the model was called, or the answer broke the
 * caller's own JSON Schema after the retry (the model answered). Refunded: everything else (the model failed or
 * produced nothing, the deadline passed, the service stopped before calling the model). The provider's own answer
 * goes to the log.
 */
export async function closeFailed(
  charge: Charge,
  failure: { error: unknown; modelCalled: boolean; model: string | undefined },
  log: Pick<CompletionLog, 'warn'>,
): Promise<void> {
  const { error } = failure;
  if ((error instanceof CallerGone && failure.modelCalled) || isChargedAnswer(error))
    return void (await charge.settle());
  if (error instanceof ModelError) {
    // The caller sees a safe sentence; the operator needs the provider's own answer (status, AWS error name).
    log.warn('generation failed', {
      kind: error.kind,
      model: failure.model ?? 'default',
      reason: error.message,
      cause: describe(error.cause),
    });
  }
  await charge.refund(error);
}

/** What went wrong as the caller's answer (a domain error); anything unexpected passes through (a hidden 500). */
export function toDomainError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof DeadlineReached) return new GenerationTimeoutError(timeoutMs);
  if (error instanceof ModelError) {
    if (error.kind === 'timeout') return new GenerationTimeoutError(timeoutMs, error);
    if (error.kind === 'unsupported')
      return unsupportedParameter(error.param ?? 'model', `${sentence(error.message)} Nothing was charged.`);
    return new GenerationFailedError(sentence(error.message), {
      cause: error,
      invalidAnswer: error instanceof InvalidAnswer,
      charged: isChargedAnswer(error),
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
    });
  }
  return error;
}

/** A caller's parameter the bot's model does not take: 400 naming it, as OpenAI's `unsupported_parameter`. */
export function unsupportedParameter(param: string, message: string): ValidationError {
  return new ValidationError(message, [{ path: param, message, code: 'unsupported_parameter' }]);
}

function describe(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  try {
    return JSON.stringify(cause).slice(0, 1000);
  } catch {
    return String(cause);
  }
}

const sentence = (text: string) => {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};
