import { resolveBotForProject, type Bot, type BotStore } from '../bots/index.ts';
import { makeCharging, type Charge, type CreditLedger } from '../credits/index.ts';
import type { KnowledgeExcerpt, KnowledgeSearch } from '../knowledge/index.ts';
import { ValidationError } from '../kernel/domain-error.ts';
import { compileJsonSchema } from '../kernel/validation/json-schema.ts';
import {
  ModelError,
  refusedParameter,
  stoppedAtLength,
  type ConversationTurn,
  type JsonSchemaFormat,
  type ModelParameters,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
  type ModelUsage,
  type ToolCall,
  type ToolChoice,
  type ToolDefinition,
} from '../models/index.ts';
import type { ModelRouter, ResolvedModel } from '../models/index.ts';
import { GenerationFailedError, GenerationTimeoutError } from './errors.ts';
import { parseJsonAnswer } from './json-answer.ts';
import { composeSystemPrompt } from './system-prompt.ts';

/** At most this many knowledge excerpts go into the system prompt (the contract's "at most 5"). */
export const KNOWLEDGE_EXCERPTS = 5;
/** The search endpoint's query limit; longer prompts are searched by their beginning. */
export const KNOWLEDGE_QUERY_CHARS = 2_000;

export interface CompletionCaller {
  projectId: string;
  monthlyBotCredits: number;
}

export interface CompletionInput {
  caller: CompletionCaller;
  prompt: string;
  /** Exactly one of the two (validated at the edge). */
  botId?: string;
  instructions?: string;
  responseFormat: 'text' | 'json';
  /** The caller's budget, for messages. */
  timeoutMs: number;
  /** Epoch ms by which the answer must be ready; the model call is aborted then. */
  deadline: number;
  /** The conversation, oldest first, ending with (or containing) `prompt`; absent: `prompt` alone. */
  turns?: ConversationTurn[];
  /** The caller's own system instructions, placed after the bot's (OpenAI-format `system` / `developer`). */
  extraInstructions?: string;
  /** Overrides the bot's temperature. */
  temperature?: number;
  maxOutputTokens?: number;
  /** With `responseFormat: json`: the schema the answer must be valid against (retried once, then 502, refunded). */
  jsonSchema?: JsonSchemaFormat;
  /** The caller's functions the model may call (OpenAI-format routes). */
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** The caller's other generation parameters: refused before the charge when the bot's provider does not take one. */
  parameters?: ModelParameters;
  /**
   * The request's costly checks (compiling the caller's answer schema), run once the bot is resolved and before the
   * charge: a request naming no bot of the caller's never pays for them. Throws the caller's 400.
   */
  checkBeforeCharge?: () => void;
  /**
   * Fires when the caller went away: the model call is aborted at once. Once the model was called the credit is final
   * (the provider has the prompt); before that, nothing is asked of the model and the credit goes back.
   */
  callerGone?: AbortSignal;
}

/** A knowledge file whose excerpts were given to the model, with its best excerpt's score (the wire's `fontes`). */
export interface CompletionSource {
  fileName: string;
  score: number;
}

interface CompletionFacts {
  usage?: ModelUsage;
  model: string;
  /** Files the answer was grounded on, best first; empty without knowledge. */
  sources: CompletionSource[];
  /** True when generation stopped at the output token limit rather than at a natural end. */
  truncated: boolean;
  /** The calls of the caller's functions the model asked for (empty when it answered with text). */
  toolCalls: ToolCall[];
  /** `tool_calls` when the model asked for calls, `length` when cut at the token limit, else `stop`. */
  finishReason: FinishReason;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export type CompletionOutput =
  | ({ responseFormat: 'text'; text: string } & CompletionFacts)
  | ({ responseFormat: 'json'; data: unknown; text: string } & CompletionFacts);

/**
 * A streamed completion: text pieces and the model's calls (`tool-call` opens call `index` with its id and name,
 * `tool-arguments` pieces follow) as the model yields them, then one `end` once the charge is settled.
 */
export type CompletionStreamEvent =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; index: number; id: string; name: string }
  | { type: 'tool-arguments'; index: number; text: string }
  | { type: 'end'; usage?: ModelUsage; model: string; truncated: boolean; finishReason: FinishReason };

export interface CompletionStream {
  /** Known before the first piece (the knowledge search ran before generation). */
  sources: CompletionSource[];
  /**
   * The rest of the completion; the first piece has already arrived, so the model was called and the credit is final
   * however the caller leaves. A model failure while it runs is thrown after the credit was refunded; ending the
   * iteration early counts as the caller going away (the model call aborted, the credit kept).
   */
  events: AsyncIterable<CompletionStreamEvent>;
}

/** What the use case reports without failing the request (a search that failed, a refund left to the sweeper). */
export interface CompletionLog {
  warn(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

export interface CompleteTextDeps {
  bots: Pick<BotStore, 'get'>;
  knowledge: KnowledgeSearch;
  credits: CreditLedger;
  models: ModelRouter;
  /** The deployment's output ceiling (`BOT_MAX_OUTPUT_TOKENS`): every model call is sent `min(asked, ceiling)`. */
  maxOutputTokens: number;
  log: CompletionLog;
  now?: () => number;
  newChargeId?: () => string;
  /** Longest the knowledge search may take before generation goes on without excerpts (default 5 s). */
  knowledgeBudgetMs?: number;
}

/**
 * `POST /api/v1/ai/completion`, after auth, rate limit and validation:
 * 1. resolve the bot inside the caller's project (404 BOT_NOT_FOUND, 403 BOT_FORBIDDEN), and its model provider;
 * 2. charge 1 bot credit (402 ERR_NO_BOT_CREDITS when the balance is spent: nothing charged);
 * 3. search the bot's knowledge for the prompt (top 5; a failed or slow search means no excerpts, not an error);
 * 4. generate with the instructions and excerpts as the system prompt, never more than the output ceiling, aborted at
 *    the deadline or as soon as the caller goes away;
 * 5. for JSON, parse the answer (one Markdown code fence tolerated);
 * 6. settle the charge, or refund it exactly once (see billing) and answer 502 GENERATION_FAILED (model failure,
 *    unusable answer), 504 GATEWAY_TIMEOUT (deadline) or the unexpected error.
 *
 * `completeText.stream` runs the same steps with the model's streaming call: it returns once the first piece of the
 * answer arrived (a failure before that is thrown as above). A JSON Schema answer is produced whole and validated
 * (retried once) before its first piece.
 *
 * Billing: once the model has been called, the credit is final when the caller leaves (before or after the first
 * piece: the provider has the prompt), and when the answer fails the caller's own JSON Schema after the retry. It is
 * refunded only when the model failed or produced nothing (a provider error, an empty or unparseable answer, the
 * deadline), or when the service stopped before calling the model (the caller left during the knowledge search).
 *
 * The caller's parameters are checked against the bot's provider (`refusedParameter`) and its costly checks run
 * (`checkBeforeCharge`) before the charge: a refusal is a 400 naming the parameter, nothing charged.
 */
export function makeCompleteText(deps: CompleteTextDeps) {
  const now = deps.now ?? Date.now;
  const chargeCredit = makeCharging({
    credits: deps.credits,
    log: { error: (message, extra) => deps.log.error(message, extra ?? {}) },
    now,
    ...(deps.newChargeId ? { newChargeId: deps.newChargeId } : {}),
  });
  const knowledgeBudgetMs = deps.knowledgeBudgetMs ?? 5_000;

  async function completeText(input: CompletionInput): Promise<CompletionOutput> {
    const { bot, model, charge } = await begin(input);
    const progress = { modelCalled: false };
    let output: CompletionOutput;
    try {
      output = await generateValidated(input, bot, model, progress);
    } catch (error) {
      await close(charge, error, progress.modelCalled, bot);
      throw toDomainError(error, input.timeoutMs);
    }
    await charge.settle();
    return output;
  }

  /** Generates; an answer the JSON Schema refuses is asked for once more, and a second refusal fails. */
  async function generateValidated(
    input: CompletionInput,
    bot: Bot | undefined,
    model: ResolvedModel,
    progress: { modelCalled: boolean },
  ) {
    try {
      return await generate(input, bot, model, progress);
    } catch (error) {
      if (!(error instanceof InvalidAnswer) || input.jsonSchema === undefined) throw error;
      deps.log.warn('answer refused by its JSON Schema; asking once more', { reason: error.message });
      return generate(input, bot, model, progress);
    }
  }

  async function streamText(input: CompletionInput): Promise<CompletionStream> {
    if (input.responseFormat === 'json' && input.jsonSchema !== undefined) return streamValidated(input);
    const { bot, model, charge } = await begin(input);
    const call = generationCall(input);
    let sources: CompletionSource[];
    let events: AsyncIterator<ModelStreamEvent> | undefined;
    let first: IteratorResult<ModelStreamEvent>;
    try {
      const request = await modelRequest(input, bot, model, call.signal);
      sources = sourcesOf(request.excerpts);
      events = model.provider.stream(request)[Symbol.asyncIterator]();
      first = await untilAborted(events.next(), call.signal);
      if (first.done || (first.value.type !== 'text' && first.value.type !== 'tool-call'))
        throw new ModelError('failed', 'The model returned an empty answer.');
    } catch (error) {
      call.end();
      void events?.return?.()?.catch(() => {});
      await close(charge, error, events !== undefined, bot);
      throw toDomainError(error, input.timeoutMs);
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
    return { sources, events: rest(first.value, more) };

    async function* rest(
      firstEvent: ModelStreamEvent,
      more: AsyncIterator<ModelStreamEvent>,
    ): AsyncGenerator<CompletionStreamEvent> {
      started = true;
      input.callerGone?.removeEventListener('abort', goneEarly);
      if (charge.state !== 'open') throw toDomainError(new CallerGone(), input.timeoutMs);
      let text = '';
      let calls = 0;
      try {
        let event: ModelStreamEvent = firstEvent;
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
        if (charge.state === 'open') await close(charge, error, true, bot);
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
  }

  /**
   * A streamed JSON Schema answer: produced whole and validated (retried once) before anything is sent, so a refused
   * answer is a plain 502; then sent in pieces.
   */
  async function streamValidated(input: CompletionInput): Promise<CompletionStream> {
    const { bot, model, charge } = await begin(input);
    const progress = { modelCalled: false };
    let output: CompletionOutput;
    try {
      output = await generateValidated(input, bot, model, progress);
    } catch (error) {
      await close(charge, error, progress.modelCalled, bot);
      throw toDomainError(error, input.timeoutMs);
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

  return Object.assign(completeText, { stream: streamText });

  /** Steps 1 and 2: the bot, its model, the charge. Nothing is charged when any of them fails. */
  async function begin(input: CompletionInput): Promise<{ bot?: Bot; model: ResolvedModel; charge: Charge }> {
    const bot =
      input.botId !== undefined
        ? await resolveBotForProject(deps.bots, input.botId, input.caller.projectId)
        : undefined;
    let model: ResolvedModel;
    try {
      model = deps.models.resolve(bot?.model);
    } catch (error) {
      // Nothing is charged yet: a deployment that cannot reach the bot's provider fails without touching the balance.
      throw toDomainError(error, input.timeoutMs);
    }
    const refused = refusedParameter(model.provider.name, input);
    if (refused) throw unsupportedParameter(refused.param, refused.message);
    input.checkBeforeCharge?.();
    if (now() >= input.deadline) throw new GenerationTimeoutError(input.timeoutMs);
    if (input.callerGone?.aborted) throw new CallerGone();

    const account = { projectId: input.caller.projectId, monthlyAllowance: input.caller.monthlyBotCredits };
    const charge = await chargeCredit(account, 'completion');
    return { ...(bot ? { bot } : {}), model, charge };
  }

  /** The model call's signal: aborted at the deadline or when the caller goes away; `end` releases both. */
  function generationCall(input: CompletionInput) {
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

  async function generate(
    input: CompletionInput,
    bot: Bot | undefined,
    model: ResolvedModel,
    progress: { modelCalled: boolean },
  ): Promise<CompletionOutput> {
    const call = generationCall(input);
    try {
      const request = await modelRequest(input, bot, model, call.signal);
      progress.modelCalled = true;
      const reply = await untilAborted(model.provider.generate(request), call.signal);
      return toOutput(reply, input, sourcesOf(request.excerpts));
    } finally {
      call.end();
    }
  }

  /** Steps 3 and 4's input: the knowledge for the prompt, the system prompt, the conversation. */
  async function modelRequest(
    input: CompletionInput,
    bot: Bot | undefined,
    model: ResolvedModel,
    signal: AbortSignal,
  ): Promise<ModelRequest> {
    const excerpts = bot ? await searchKnowledge(bot, input.prompt, signal) : [];
    // A caller gone (or a deadline passed) during the search: the model is not asked at all.
    if (signal.aborted) throw abortReason(signal);
    const instructions = [bot?.instructions ?? input.instructions ?? '', input.extraInstructions ?? '']
      .map((part) => part.trim())
      .filter((part) => part.length > 0)
      .join('\n\n');
    const system = composeSystemPrompt({ instructions, excerpts, responseFormat: input.responseFormat });
    const temperature = input.temperature ?? bot?.temperature;
    return {
      ...(model.model === undefined ? {} : { model: model.model }),
      system,
      prompt: input.prompt,
      ...(input.turns === undefined ? {} : { turns: input.turns }),
      responseFormat: input.responseFormat,
      ...(input.jsonSchema === undefined ? {} : { jsonSchema: input.jsonSchema }),
      ...(input.tools === undefined || input.tools.length === 0 ? {} : { tools: input.tools }),
      ...(input.toolChoice === undefined ? {} : { toolChoice: input.toolChoice }),
      ...(input.parallelToolCalls === undefined ? {} : { parallelToolCalls: input.parallelToolCalls }),
      ...(temperature === undefined ? {} : { temperature }),
      maxOutputTokens: Math.min(input.maxOutputTokens ?? deps.maxOutputTokens, deps.maxOutputTokens),
      ...(input.parameters === undefined ? {} : { parameters: input.parameters }),
      excerpts,
      signal,
    };
  }

  /**
   * Step 6 on failure. Kept: the caller left once the model was called, or the answer broke the caller's own JSON
   * Schema after the retry (the model answered). Refunded: everything else (the model failed or produced nothing, the
   * deadline passed, the service stopped before calling the model). The provider's own answer goes to the log.
   */
  async function close(charge: Charge, error: unknown, modelCalled: boolean, bot: Bot | undefined): Promise<void> {
    if ((error instanceof CallerGone && modelCalled) || isChargedAnswer(error)) return void (await charge.settle());
    if (error instanceof ModelError) {
      // The caller sees a safe sentence; the operator needs the provider's own answer (status, AWS error name).
      deps.log.warn('generation failed', {
        kind: error.kind,
        model: bot?.model ?? 'default',
        reason: error.message,
        cause: describe(error.cause),
      });
    }
    await charge.refund(error);
  }

  async function searchKnowledge(bot: Bot, prompt: string, deadline: AbortSignal): Promise<KnowledgeExcerpt[]> {
    // Its own budget, ended early by the request's deadline; a plain timer rather than AbortSignal.any/timeout,
    // which keep per-request listeners and timers alive long after the request.
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(), knowledgeBudgetMs);
    const onDeadline = () => budget.abort(deadline.reason);
    deadline.addEventListener('abort', onDeadline, { once: true });
    try {
      return await untilAborted(
        deps.knowledge.search({
          botId: bot.botId,
          bot,
          query: prompt.slice(0, KNOWLEDGE_QUERY_CHARS),
          topK: KNOWLEDGE_EXCERPTS,
        }),
        budget.signal,
      );
    } catch (cause) {
      if (deadline.aborted) throw cause;
      deps.log.warn('knowledge search failed or was too slow; generating without excerpts', {
        botId: bot.botId,
        cause: String(cause),
      });
      return [];
    } finally {
      clearTimeout(timer);
      deadline.removeEventListener('abort', onDeadline);
    }
  }
}

function toOutput(
  reply: ModelReply,
  input: Pick<CompletionInput, 'responseFormat' | 'jsonSchema'>,
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
  if (input.responseFormat === 'text' || toolCalls.length > 0)
    return { responseFormat: 'text', text: reply.text, ...facts };
  const parsed = parseJsonAnswer(reply.text);
  if (!parsed.ok) throw new InvalidAnswer('the model did not answer with valid JSON.');
  if (input.jsonSchema) {
    const compiled = compileJsonSchema(input.jsonSchema.schema);
    const problem = compiled.ok ? compiled.schema.validate(parsed.value) : compiled.message;
    if (problem !== undefined)
      throw new InvalidAnswer(`the model's answer breaks the JSON Schema's rule ${problem}.`, true);
  }
  return { responseFormat: 'json', data: parsed.value, text: reply.text, ...facts };
}

/** A finished answer as stream events: text a word at a time, or its calls, then the end. */
async function* piecesOf(output: CompletionOutput): AsyncGenerator<CompletionStreamEvent> {
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

function finishReasonOf(stopReason: string | undefined, calls: boolean): FinishReason {
  if (calls) return 'tool_calls';
  return stoppedAtLength(stopReason) ? 'length' : 'stop';
}

/** An answer the model produced that the caller's format refuses (not JSON, or not valid against the schema). */
class InvalidAnswer extends ModelError {
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

const isChargedAnswer = (error: unknown) => error instanceof InvalidAnswer && error.charged;

/** A caller's parameter the bot's model does not take: 400 naming it, as OpenAI's `unsupported_parameter`. */
function unsupportedParameter(param: string, message: string): ValidationError {
  return new ValidationError(message, [{ path: param, message, code: 'unsupported_parameter' }]);
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

/** Maps what went wrong to the contract's answer; anything unexpected passes through (a hidden 500). */
function toDomainError(error: unknown, timeoutMs: number): unknown {
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

/** The reason the deadline controller aborts with. */
class DeadlineReached extends Error {
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

/**
 * Settles with the work or rejects as soon as the signal fires, whichever comes first, so a provider or store that
 * ignores its signal still cannot hold the answer past the deadline. The abandoned work's outcome is swallowed.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
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

function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof DeadlineReached || signal.reason instanceof CallerGone
    ? signal.reason
    : new ModelError('timeout', 'aborted', { cause: signal.reason });
}
