import { resolveBotForProject, type Bot, type BotStore } from '../bots/index.ts';
import { makeCharging, type Charge, type CreditLedger } from '../credits/index.ts';
import type { KnowledgeExcerpt, KnowledgeSearch } from '../knowledge/index.ts';
import {
  ModelError,
  stoppedAtLength,
  type ConversationTurn,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
  type ModelUsage,
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
  /** Fires when the caller went away: the model call is aborted and the credit refunded. */
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
}

export type CompletionOutput =
  | ({ responseFormat: 'text'; text: string } & CompletionFacts)
  | ({ responseFormat: 'json'; data: unknown; text: string } & CompletionFacts);

/** A streamed completion: text pieces as the model yields them, then one `end` once the charge is settled. */
export type CompletionStreamEvent =
  | { type: 'text'; text: string }
  | { type: 'end'; usage?: ModelUsage; model: string; truncated: boolean };

export interface CompletionStream {
  /** Known before the first piece (the knowledge search ran before generation). */
  sources: CompletionSource[];
  /**
   * The rest of the completion; the first piece has already arrived. A failure while it runs is thrown after the
   * credit was refunded; ending the iteration early counts as the caller going away (aborted, refunded).
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
 * 4. generate with the instructions and excerpts as the system prompt, aborted at the deadline;
 * 5. for JSON, parse the answer (one Markdown code fence tolerated);
 * 6. settle the charge; on any failure after the charge, refund it exactly once and answer
 *    502 GENERATION_FAILED (model failure, unusable answer), 504 GATEWAY_TIMEOUT (deadline) or the unexpected error.
 *
 * `completeText.stream` runs the same steps with the model's streaming call: it returns once the first piece of the
 * answer arrived (a failure before that is thrown as above), and settles when the stream ends; a failure during the
 * stream, or a caller who goes away, refunds the charge exactly once and aborts the model call.
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
    let output: CompletionOutput;
    try {
      output = await generate(input, bot, model);
    } catch (error) {
      await fail(charge, error, bot);
      throw toDomainError(error, input.timeoutMs);
    }
    await charge.settle();
    return output;
  }

  async function streamText(input: CompletionInput): Promise<CompletionStream> {
    const { bot, model, charge } = await begin(input);
    const call = generationCall(input);
    let sources: CompletionSource[];
    let events: AsyncIterator<ModelStreamEvent>;
    let first: IteratorResult<ModelStreamEvent>;
    try {
      const request = await modelRequest(input, bot, model, call.signal);
      sources = sourcesOf(request.excerpts);
      events = model.provider.stream(request)[Symbol.asyncIterator]();
      first = await untilAborted(events.next(), call.signal);
      if (first.done || first.value.type !== 'text')
        throw new ModelError('failed', 'The model returned an empty answer.');
    } catch (error) {
      call.end();
      await fail(charge, error, bot);
      throw toDomainError(error, input.timeoutMs);
    }
    return { sources, events: rest(first.value.text, events) };

    async function* rest(
      firstText: string,
      more: AsyncIterator<ModelStreamEvent>,
    ): AsyncGenerator<CompletionStreamEvent> {
      let text = firstText;
      try {
        yield { type: 'text', text: firstText };
        for (;;) {
          const next = await untilAborted(more.next(), call.signal);
          if (next.done) throw new ModelError('failed', 'The model stream ended without finishing the answer.');
          const event = next.value;
          if (event.type === 'text') {
            text += event.text;
            yield { type: 'text', text: event.text };
            continue;
          }
          if (input.responseFormat === 'json' && !parseJsonAnswer(text).ok)
            throw new ModelError('failed', 'the model did not answer with valid JSON.');
          await charge.settle();
          yield {
            type: 'end',
            model: event.model,
            truncated: stoppedAtLength(event.stopReason),
            ...(event.usage ? { usage: event.usage } : {}),
          };
          return;
        }
      } catch (error) {
        if (charge.state === 'open') await fail(charge, error, bot);
        throw toDomainError(error, input.timeoutMs);
      } finally {
        // Reached without a settle or a refund when the consumer stopped iterating: the caller went away.
        if (charge.state === 'open') {
          call.abort(new CallerGone());
          await fail(charge, new CallerGone(), bot);
        }
        call.end();
        void more.return?.()?.catch(() => {});
      }
    }
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
    if (now() >= input.deadline) throw new GenerationTimeoutError(input.timeoutMs);

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
  ): Promise<CompletionOutput> {
    const call = generationCall(input);
    try {
      const request = await modelRequest(input, bot, model, call.signal);
      const reply = await untilAborted(model.provider.generate(request), call.signal);
      return toOutput(reply, input.responseFormat, sourcesOf(request.excerpts));
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
      ...(temperature === undefined ? {} : { temperature }),
      ...(input.maxOutputTokens === undefined ? {} : { maxOutputTokens: input.maxOutputTokens }),
      excerpts,
      signal,
    };
  }

  /** Step 6 on failure: the provider's own answer to the log, the credit back. */
  async function fail(charge: Charge, error: unknown, bot: Bot | undefined): Promise<void> {
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

function toOutput(reply: ModelReply, responseFormat: 'text' | 'json', sources: CompletionSource[]): CompletionOutput {
  const facts: CompletionFacts = {
    model: reply.model,
    sources,
    truncated: stoppedAtLength(reply.stopReason),
    ...(reply.usage ? { usage: reply.usage } : {}),
  };
  if (responseFormat === 'text') return { responseFormat, text: reply.text, ...facts };
  const parsed = parseJsonAnswer(reply.text);
  if (!parsed.ok) throw new ModelError('failed', 'the model did not answer with valid JSON.');
  return { responseFormat, data: parsed.value, text: reply.text, ...facts };
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
    return new GenerationFailedError(sentence(error.message), {
      cause: error,
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
