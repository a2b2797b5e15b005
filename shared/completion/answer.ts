import { compileJsonSchema } from '../kernel/validation/json-schema.ts';
import { ModelError, type ModelReply, stoppedAtLength } from '../models/index.ts';
import type {
  CompletionFacts,
  CompletionOutput,
  CompletionRequest,
  CompletionSource,
  CompletionStreamEvent,
  FinishReason,
} from './completion.ts';
import { parseJsonAnswer } from './json-answer.ts';

/** What the model answered, as the caller asked for it: text, or a JSON value checked against the caller's schema. */

/** An answer the model produced that the caller's format refuses (not JSON, or not valid against the schema). */
export class InvalidAnswer extends ModelError {
  /**
   * True when the credit stays spent: the answer breaks the caller's own schema (a rule the caller chose), or it was
   * already written to the caller.
   */
  readonly charged: boolean;

  constructor(message: string, charged = false) {
    super('failed', message);
    this.charged = charged;
  }
}

export const isChargedAnswer = (error: unknown) => error instanceof InvalidAnswer && error.charged;

/** The model's reply as the completion's output; an answer the format refuses throws {@link InvalidAnswer}. */
export function toOutput(
  reply: ModelReply,
  request: Pick<CompletionRequest, 'responseFormat' | 'jsonSchema'>,
  sources: CompletionSource[],
): CompletionOutput {
  const toolCalls = reply.toolCalls ?? [];
  const facts: CompletionFacts = {
    model: reply.model,
    sources,
    truncated: stoppedAtLength(reply.stopReason),
    toolCalls,
    finishReason: finishReasonOf(reply.stopReason, toolCalls.length > 0),
    ...(reply.usage ? { usage: reply.usage } : {}),
  };
  // An answer of calls has no JSON to check: the caller runs them and asks again.
  if (request.responseFormat === 'text' || toolCalls.length > 0)
    return { responseFormat: 'text', text: reply.text, ...facts };
  const parsed = parseJsonAnswer(reply.text);
  if (!parsed.ok) throw new InvalidAnswer('the model did not answer with valid JSON.');
  if (request.jsonSchema) {
    const compiled = compileJsonSchema(request.jsonSchema.schema);
    const problem = compiled.ok ? compiled.schema.validate(parsed.value) : compiled.message;
    if (problem !== undefined)
      throw new InvalidAnswer(`the model's answer breaks the JSON Schema's rule ${problem}.`, true);
  }
  return { responseFormat: 'json', data: parsed.value, text: reply.text, ...facts };
}

/** A finished answer as stream events: text a word at a time, or its calls, then the end. */
export async function* piecesOf(output: CompletionOutput): AsyncGenerator<CompletionStreamEvent> {
  const text = output.responseFormat === 'json' ? JSON.stringify(output.data) : output.text;
  for (const piece of text.match(/\s*\S+\s*/g) ?? []) yield { type: 'text', text: piece };
  for (const [index, call] of output.toolCalls.entries()) {
    yield { type: 'tool-call', index, id: call.id, name: call.name };
    yield { type: 'tool-arguments', index, text: call.arguments };
  }
  yield {
    type: 'end',
    model: output.model,
    truncated: output.truncated,
    finishReason: output.finishReason,
    ...(output.usage ? { usage: output.usage } : {}),
  };
}

export function finishReasonOf(stopReason: string | undefined, calls: boolean): FinishReason {
  if (calls) return 'tool_calls';
  return stoppedAtLength(stopReason) ? 'length' : 'stop';
}

/** One entry per file, with its best excerpt's score, best first (ties by name, so the order is stable). */
export function sourcesOf(excerpts: readonly { fileName: string; score: number }[]): CompletionSource[] {
  const best = new Map<string, number>();
  for (const excerpt of excerpts)
    best.set(excerpt.fileName, Math.max(best.get(excerpt.fileName) ?? -Infinity, excerpt.score));
  return [...best]
    .map(([fileName, score]) => ({ fileName, score }))
    .sort((a, b) => b.score - a.score || a.fileName.localeCompare(b.fileName));
}
