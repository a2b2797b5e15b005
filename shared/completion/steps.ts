import { type Bot, resolveBotForProject } from '../bots/index.ts';
import { type Charge, makeCharging } from '../credits/index.ts';
import type { KnowledgeExcerpt } from '../knowledge/index.ts';
import { type ModelRequest, type ResolvedModel, refusedParameter } from '../models/index.ts';
import { InvalidAnswer, sourcesOf, toOutput } from './answer.ts';
import type { CompleteTextDeps, CompletionInput, CompletionOutput } from './completion.ts';
import { GenerationTimeoutError } from './errors.ts';
import { closeFailed, toDomainError, unsupportedParameter } from './failure.ts';
import { abortReason, CallerGone, generationCall, untilAborted } from './generation-call.ts';
import { composeSystemPrompt } from './system-prompt.ts';

/** At most this many knowledge excerpts go into the system prompt. */
export const KNOWLEDGE_EXCERPTS = 5;
/** The search endpoint's query limit; longer prompts are searched by their beginning. */
export const KNOWLEDGE_QUERY_CHARS = 2_000;

/** A completion once begun: its bot (none for standalone instructions), the model that answers, the credit taken. */
export interface Begun {
  bot?: Bot;
  model: ResolvedModel;
  charge: Charge;
}

/** Whether the model was asked yet: once it was, a caller who leaves still pays. */
export interface Progress {
  modelCalled: boolean;
}

/**
 * The steps of a completion, whole or streamed (./complete-text.ts, ./stream-text.ts):
 * 1. `begin`: the bot inside the caller's project (404 BOT_NOT_FOUND, 403 BOT_FORBIDDEN) and its model; the caller's
 *    parameters checked against that model's provider and the request's costly checks run (400, nothing charged);
 *    then 1 bot credit charged (402 ERR_NO_BOT_CREDITS when the balance is spent, nothing charged);
 * 2. `modelRequest`: the bot's knowledge searched for the prompt (top 5; a failed or slow search means no excerpts,
 *    not an error), the instructions and excerpts as the system prompt, never more than the output ceiling;
 * 3. `generate`: the model asked, aborted at the deadline or as soon as the caller goes away; a JSON answer parsed
 *    (one Markdown code fence tolerated) and checked against the caller's schema, asked for once more if it breaks it;
 * 4. `close`: on failure, the charge refunded or kept (./failure.ts), the error as the caller's answer.
 */
export function makeCompletionSteps(deps: CompleteTextDeps) {
  const now = deps.now ?? Date.now;
  const context: StepsContext = {
    deps,
    now,
    knowledgeBudgetMs: deps.knowledgeBudgetMs ?? 5_000,
    chargeCredit: makeCharging({
      credits: deps.credits,
      log: { error: (message, extra) => deps.log.error(message, extra ?? {}) },
      now,
      ...(deps.newChargeId ? { newChargeId: deps.newChargeId } : {}),
    }),
  };
  return {
    now: context.now,
    begin: (input: CompletionInput) => begin(context, input),
    modelRequest: (input: CompletionInput, begun: Begun, signal: AbortSignal) =>
      modelRequest(context, input, begun, signal),
    generate: (input: CompletionInput, begun: Begun, progress: Progress) =>
      generateValidated(context, input, begun, progress),
    /** Closes the charge of a failed completion and throws the caller's error. */
    async fail(input: CompletionInput, begun: Begun, error: unknown, modelCalled: boolean): Promise<never> {
      await closeFailed(begun.charge, { error, modelCalled, model: begun.bot?.model }, deps.log);
      throw toDomainError(error, input.timeoutMs);
    },
  };
}

export type CompletionSteps = ReturnType<typeof makeCompletionSteps>;

interface StepsContext {
  deps: CompleteTextDeps;
  now: () => number;
  knowledgeBudgetMs: number;
  chargeCredit: ReturnType<typeof makeCharging>;
}

/** Step 1: the bot, its model, the charge. Nothing is charged when any of them fails. */
async function begin(context: StepsContext, input: CompletionInput): Promise<Begun> {
  const { deps, now } = context;
  const bot =
    input.botId !== undefined ? await resolveBotForProject(deps.bots, input.botId, input.caller.projectId) : undefined;
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
  const charge = await context.chargeCredit(account, 'completion');
  return { ...(bot ? { bot } : {}), model, charge };
}

/** Step 2: the knowledge for the prompt, the system prompt, the conversation. */
async function modelRequest(
  context: StepsContext,
  input: CompletionInput,
  { bot, model }: Begun,
  signal: AbortSignal,
): Promise<ModelRequest> {
  const ceiling = context.deps.maxOutputTokens;
  const excerpts = bot ? await searchKnowledge(context, bot, input.prompt, signal) : [];
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
    maxOutputTokens: Math.min(input.maxOutputTokens ?? ceiling, ceiling),
    ...(input.parameters === undefined ? {} : { parameters: input.parameters }),
    excerpts,
    signal,
  };
}

async function searchKnowledge(
  context: StepsContext,
  bot: Bot,
  prompt: string,
  deadline: AbortSignal,
): Promise<KnowledgeExcerpt[]> {
  // Its own budget, ended early by the request's deadline; a plain timer rather than AbortSignal.any/timeout,
  // which keep per-request listeners and timers alive long after the request.
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(), context.knowledgeBudgetMs);
  const onDeadline = () => budget.abort(deadline.reason);
  deadline.addEventListener('abort', onDeadline, { once: true });
  try {
    return await untilAborted(
      context.deps.knowledge.search({
        botId: bot.botId,
        bot,
        query: prompt.slice(0, KNOWLEDGE_QUERY_CHARS),
        topK: KNOWLEDGE_EXCERPTS,
      }),
      budget.signal,
    );
  } catch (cause) {
    if (deadline.aborted) throw cause;
    context.deps.log.warn('knowledge search failed or was too slow; generating without excerpts', {
      botId: bot.botId,
      cause: String(cause),
    });
    return [];
  } finally {
    clearTimeout(timer);
    deadline.removeEventListener('abort', onDeadline);
  }
}

/** Step 3: generates; an answer the JSON Schema refuses is asked for once more, and a second refusal fails. */
async function generateValidated(
  context: StepsContext,
  input: CompletionInput,
  begun: Begun,
  progress: Progress,
): Promise<CompletionOutput> {
  try {
    return await generate(context, input, begun, progress);
  } catch (error) {
    if (!(error instanceof InvalidAnswer) || input.jsonSchema === undefined) throw error;
    context.deps.log.warn('answer refused by its JSON Schema; asking once more', { reason: error.message });
    return generate(context, input, begun, progress);
  }
}

async function generate(
  context: StepsContext,
  input: CompletionInput,
  begun: Begun,
  progress: Progress,
): Promise<CompletionOutput> {
  const call = generationCall(input, context.now);
  try {
    const request = await modelRequest(context, input, begun, call.signal);
    progress.modelCalled = true;
    const reply = await untilAborted(begun.model.provider.generate(request), call.signal);
    return toOutput(reply, input, sourcesOf(request.excerpts));
  } finally {
    call.end();
  }
}
