import { type ModelStreamEvent, ModelError, stoppedAtLength } from '../models/index.ts';
import { finishReasonOf, InvalidAnswer, piecesOf, sourcesOf } from './answer.ts';
import type {
  CompletionInput,
  CompletionOutput,
  CompletionSource,
  CompletionStream,
  CompletionStreamEvent,
} from './completion.ts';
import { toDomainError } from './failure.ts';
import { CallerGone, type GenerationCall, generationCall, untilAborted } from './generation-call.ts';
import { parseJsonAnswer } from './json-answer.ts';
import type { Begun, CompletionSteps } from './steps.ts';

/**
 * A streamed completion: the steps of ./steps.ts with the model's streaming call, returned once the first piece of
 * the answer arrived (a failure before it is thrown as the whole answer's would be). A JSON Schema answer is produced
 * whole and validated (retried once) before its first piece, so a refused answer is a plain 502.
 */
export function makeStreamText(steps: CompletionSteps) {
  return function streamText(input: CompletionInput): Promise<CompletionStream> {
    return input.responseFormat === 'json' && input.jsonSchema !== undefined
      ? streamValidated(steps, input)
      : streamFromModel(steps, input);
  };
}

/** The model's own stream, relayed piece by piece. */
async function streamFromModel(steps: CompletionSteps, input: CompletionInput): Promise<CompletionStream> {
  const begun = await steps.begin(input);
  const { charge } = begun;
  const call = generationCall(input, steps.now);
  let sources: CompletionSource[];
  let events: AsyncIterator<ModelStreamEvent> | undefined;
  let first: IteratorResult<ModelStreamEvent>;
  try {
    const request = await steps.modelRequest(input, begun, call.signal);
    sources = sourcesOf(request.excerpts);
    events = begun.model.provider.stream(request)[Symbol.asyncIterator]();
    first = await untilAborted(events.next(), call.signal);
    if (first.done || (first.value.type !== 'text' && first.value.type !== 'tool-call'))
      throw new ModelError('failed', 'The model returned an empty answer.');
  } catch (error) {
    call.end();
    void events?.return?.()?.catch(() => {});
    return steps.fail(input, begun, error, events !== undefined);
  }
  const more = events;
  // A caller gone before anyone took the first piece: the events may never be iterated, so the call ends here.
  let started = false;
  const goneEarly = () => {
    if (started || charge.state !== 'open') return;
    call.abort(new CallerGone());
    call.end();
    void more.return?.()?.catch(() => {});
    void charge.settle();
  };
  input.callerGone?.addEventListener('abort', goneEarly, { once: true });
  const onStart = () => {
    started = true;
    input.callerGone?.removeEventListener('abort', goneEarly);
  };
  return { sources, events: relay(steps, input, begun, { call, first: first.value, more, onStart }) };
}

/**
 * The rest of the model's stream: each piece as it comes, a JSON answer checked at its end, the charge settled before
 * the last event. Stopped early by its consumer, the caller went away after the model was called: the credit is final.
 */
async function* relay(
  steps: CompletionSteps,
  input: CompletionInput,
  begun: Begun,
  stream: { call: GenerationCall; first: ModelStreamEvent; more: AsyncIterator<ModelStreamEvent>; onStart(): void },
): AsyncGenerator<CompletionStreamEvent> {
  const { charge } = begun;
  const { call, more } = stream;
  stream.onStart();
  if (charge.state !== 'open') throw toDomainError(new CallerGone(), input.timeoutMs);
  let text = '';
  let calls = 0;
  try {
    let event: ModelStreamEvent = stream.first;
    for (;;) {
      if (event.type === 'end') {
        if (input.responseFormat === 'json' && calls === 0 && !parseJsonAnswer(text).ok)
          // The whole answer was produced and written: the credit stays spent; the caller is told it is not JSON.
          throw new InvalidAnswer('the model did not answer with valid JSON.', true);
        await charge.settle();
        yield {
          type: 'end',
          model: event.model,
          truncated: stoppedAtLength(event.stopReason),
          finishReason: finishReasonOf(event.stopReason, calls > 0),
          ...(event.usage ? { usage: event.usage } : {}),
        };
        return;
      }
      if (event.type === 'text') text += event.text;
      if (event.type === 'tool-call') calls++;
      yield event;
      const next = await untilAborted(more.next(), call.signal);
      if (next.done) throw new ModelError('failed', 'The model stream ended without finishing the answer.');
      event = next.value;
    }
  } catch (error) {
    if (charge.state === 'open') await steps.fail(input, begun, error, true);
    throw toDomainError(error, input.timeoutMs);
  } finally {
    // Reached without a settle or a refund when the consumer stopped iterating: the caller went away after the
    // model was called, so the credit is final.
    if (charge.state === 'open') {
      call.abort(new CallerGone());
      await charge.settle();
    }
    call.end();
    void more.return?.()?.catch(() => {});
  }
}

/** A JSON Schema answer: produced whole and validated (retried once) before anything is sent, then sent in pieces. */
async function streamValidated(steps: CompletionSteps, input: CompletionInput): Promise<CompletionStream> {
  const begun = await steps.begin(input);
  const { charge } = begun;
  const progress = { modelCalled: false };
  let output: CompletionOutput;
  try {
    output = await steps.generate(input, begun, progress);
  } catch (error) {
    return steps.fail(input, begun, error, progress.modelCalled);
  }
  // The answer exists: the credit is final however the caller leaves.
  let started = false;
  const goneEarly = () => {
    if (!started) void charge.settle();
  };
  input.callerGone?.addEventListener('abort', goneEarly, { once: true });
  async function* deliver(): AsyncGenerator<CompletionStreamEvent> {
    started = true;
    input.callerGone?.removeEventListener('abort', goneEarly);
    if (charge.state !== 'open') throw toDomainError(new CallerGone(), input.timeoutMs);
    try {
      for await (const event of piecesOf(output)) {
        if (event.type === 'end') await charge.settle();
        yield event;
      }
    } finally {
      if (charge.state === 'open') await charge.settle();
    }
  }
  return { sources: output.sources, events: deliver() };
}
