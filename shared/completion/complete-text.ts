import { resolveBotForProject, type Bot, type BotStore } from '../bots/bot.ts';
import type { ChargeReceipt, CreditLedger } from '../credits/credit-ledger.ts';
import { NoBotCreditsError } from '../errors/domain-error.ts';
import { newId } from '../ids/ids.ts';
import type { KnowledgeExcerpt, KnowledgeSearch } from '../knowledge/knowledge-search.ts';
import { ModelError, type ModelReply, type ModelUsage } from '../models/model-provider.ts';
import type { ModelRouter, ResolvedModel } from '../models/model-router.ts';
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
}

export type CompletionOutput =
  | { responseFormat: 'text'; text: string; usage?: ModelUsage; model: string }
  | { responseFormat: 'json'; data: unknown; usage?: ModelUsage; model: string };

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
 */
export function makeCompleteText(deps: CompleteTextDeps) {
  const now = deps.now ?? Date.now;
  const newChargeId = deps.newChargeId ?? (() => newId('chg'));
  const knowledgeBudgetMs = deps.knowledgeBudgetMs ?? 5_000;

  return async function completeText(input: CompletionInput): Promise<CompletionOutput> {
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
    const outcome = await deps.credits.charge(account, newChargeId(), new Date(now()));
    if (!outcome.charged) throw new NoBotCreditsError();
    const receipt = outcome.receipt;

    let output: CompletionOutput;
    try {
      output = await generate(input, bot, model);
    } catch (error) {
      if (error instanceof ModelError) {
        // The caller sees a safe sentence; the operator needs the provider's own answer (status, AWS error name).
        deps.log.warn('generation failed', {
          kind: error.kind,
          model: bot?.model ?? 'default',
          reason: error.message,
          cause: describe(error.cause),
        });
      }
      await refund(receipt, error);
      throw toDomainError(error, input.timeoutMs);
    }
    try {
      await deps.credits.settle(receipt);
    } catch (cause) {
      // The answer exists and the caller gets it. The charge stays open; the sweeper will refund it later, so this
      // completion may end up free: logged loudly, and never worth failing a request that already succeeded.
      deps.log.error('completion charge not settled', { chargeId: receipt.chargeId, cause: String(cause) });
    }
    return output;
  };

  async function generate(
    input: CompletionInput,
    bot: Bot | undefined,
    model: ResolvedModel,
  ): Promise<CompletionOutput> {
    const controller = new AbortController();
    const remaining = input.deadline - now();
    const timer = setTimeout(() => controller.abort(new DeadlineReached()), Math.max(0, remaining));
    try {
      const excerpts = bot ? await searchKnowledge(bot, input.prompt, controller.signal) : [];
      const system = composeSystemPrompt({
        instructions: bot?.instructions ?? input.instructions ?? '',
        excerpts,
        responseFormat: input.responseFormat,
      });
      const reply = await untilAborted(
        model.provider.generate({
          ...(model.model === undefined ? {} : { model: model.model }),
          system,
          prompt: input.prompt,
          responseFormat: input.responseFormat,
          ...(bot?.temperature === undefined ? {} : { temperature: bot.temperature }),
          excerpts,
          signal: controller.signal,
        }),
        controller.signal,
      );
      return toOutput(reply, input.responseFormat);
    } finally {
      clearTimeout(timer);
    }
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

  async function refund(receipt: ChargeReceipt, failure: unknown): Promise<void> {
    try {
      await deps.credits.refund(receipt);
    } catch (cause) {
      // The charge stays open and the sweeper refunds it after CREDIT_SWEEP_AFTER_SECONDS: still exactly once.
      deps.log.error('completion refund failed; left to the sweeper', {
        chargeId: receipt.chargeId,
        failure: String(failure),
        cause: String(cause),
      });
    }
  }
}

function toOutput(reply: ModelReply, responseFormat: 'text' | 'json'): CompletionOutput {
  const usage = reply.usage ? { usage: reply.usage } : {};
  if (responseFormat === 'text') return { responseFormat, text: reply.text, model: reply.model, ...usage };
  const parsed = parseJsonAnswer(reply.text);
  if (!parsed.ok) throw new ModelError('failed', 'the model did not answer with valid JSON.');
  return { responseFormat, data: parsed.value, model: reply.model, ...usage };
}

/** Names what went wrong in the domain's terms; anything unexpected passes through (a hidden 500 at the edge). */
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
  return signal.reason instanceof DeadlineReached
    ? signal.reason
    : new ModelError('timeout', 'aborted', { cause: signal.reason });
}
