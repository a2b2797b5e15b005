import { ModelError } from '../models/index.ts';
import type { CompletionInput } from './completion.ts';

/**
 * The time a model call has, and what ends it early: the deadline (the caller's `timeoutMs`, or the function's own
 * time) and a caller who went away. Both abort one signal, which the model providers pass to their network call.
 */

/** The reason the deadline controller aborts with. */
export class DeadlineReached extends Error {
  constructor() {
    super('deadline reached');
    this.name = 'DeadlineReached';
  }
}

/** The reason the model call is aborted with when the caller went away; nobody is left to answer. */
export class CallerGone extends Error {
  constructor() {
    super('the caller went away before the answer was complete');
    this.name = 'CallerGone';
  }
}

export interface GenerationCall {
  /** Aborted at the deadline or when the caller goes away. */
  signal: AbortSignal;
  abort(reason: unknown): void;
  /** Releases the timer and the caller's listener. */
  end(): void;
}

/** The model call's signal: aborted at the deadline or when the caller goes away; `end` releases both. */
export function generationCall(
  input: Pick<CompletionInput, 'deadline' | 'callerGone'>,
  now: () => number,
): GenerationCall {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineReached()), Math.max(0, input.deadline - now()));
  const onGone = () => controller.abort(new CallerGone());
  input.callerGone?.addEventListener('abort', onGone, { once: true });
  if (input.callerGone?.aborted) onGone();
  return {
    signal: controller.signal,
    abort: (reason: unknown) => controller.abort(reason),
    end: () => {
      clearTimeout(timer);
      input.callerGone?.removeEventListener('abort', onGone);
    },
  };
}

/**
 * Settles with the work or rejects as soon as the signal fires, whichever comes first, so a provider or store that
 * ignores its signal still cannot hold the answer past the deadline. The abandoned work's outcome is swallowed.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        // A provider that turned our abort into its own error: report the deadline, not the provider's wording.
        reject(signal.aborted ? abortReason(signal) : error);
      },
    );
  });
}

/** Why the call was aborted: the deadline, the caller gone, or anything else as a model timeout. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof DeadlineReached || signal.reason instanceof CallerGone
    ? signal.reason
    : new ModelError('timeout', 'aborted', { cause: signal.reason });
}
