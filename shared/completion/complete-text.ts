import type { CompleteTextDeps, CompletionInput, CompletionOutput } from './completion.ts';
import { makeCompletionSteps } from './steps.ts';
import { makeStreamText } from './stream-text.ts';

/**
 * A completion, after auth, rate limit and validation: the bot resolved, 1 bot credit charged, its knowledge searched,
 * the model asked, the charge settled, or closed on failure (refunded, or kept when the model answered); every step
 * in ./steps.ts. The failures answer 502 GENERATION_FAILED (model failure, unusable answer), 504 GATEWAY_TIMEOUT
 * (deadline) or pass the unexpected error through.
 *
 * `completeText.stream` runs the same steps with the model's streaming call (./stream-text.ts): it returns once the
 * first piece of the answer arrived (a failure before that is thrown as above).
 *
 * Billing: once the model has been called, the credit is final when the caller leaves (before or after the first
 * piece: the provider has the prompt), and when the answer fails the caller's own JSON Schema after the retry. It is
 * refunded only when the model failed or produced nothing (a provider error, an empty or unparseable answer, the
 * deadline), or when the service stopped before calling the model (the caller left during the knowledge search).
 */
export function makeCompleteText(deps: CompleteTextDeps) {
  const steps = makeCompletionSteps(deps);

  async function completeText(input: CompletionInput): Promise<CompletionOutput> {
    const begun = await steps.begin(input);
    const progress = { modelCalled: false };
    let output: CompletionOutput;
    try {
      output = await steps.generate(input, begun, progress);
    } catch (error) {
      return steps.fail(input, begun, error, progress.modelCalled);
    }
    await begun.charge.settle();
    return output;
  }

  return Object.assign(completeText, { stream: makeStreamText(steps) });
}

/** The use case as the routes call it: `completeText(input)` for the whole answer, `.stream(input)` for pieces. */
export type CompleteText = ReturnType<typeof makeCompleteText>;
