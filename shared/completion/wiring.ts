import type { BotStore } from '../bots/index.ts';
import type { CreditLedger } from '../credits/index.ts';
import type { Platform } from '../kernel/platform.ts';
import { HashedEmbeddings, type KnowledgeSearch, makeEmbedTexts } from '../knowledge/index.ts';
import type { EmbeddingsProvider, ModelRouter } from '../models/index.ts';
import { completionHandler } from './api/completion-route.ts';
import { chatCompletionsExchange } from './api/openai/chat-route.ts';
import { embeddingsHandler } from './api/openai/embeddings-route.ts';
import { openAiGenerationHandler } from './api/openai/generation-route.ts';
import { modelsHandler } from './api/openai/models-route.ts';
import { responsesExchange } from './api/openai/responses-route.ts';
import { makeCompleteText } from './complete-text.ts';
import { type CompletionSettings, completionSettings } from './settings.ts';

/**
 * What a completion runs on, from other areas: the project's bots, their knowledge, the credit ledger and the
 * deployment's models. The composition roots build them alike for the three generation routes, so the routes cannot
 * drift apart in what they charge, search or call.
 */
export interface CompletionPorts {
  bots: Pick<BotStore, 'get'>;
  knowledge: KnowledgeSearch;
  credits: CreditLedger;
  models: ModelRouter;
}

/** `POST /api/v1/ai/completion`: generation with a bot or standalone instructions, within the caller's `timeoutMs`. */
export function wireCompletion(
  platform: Pick<Platform, 'logger'>,
  ports: CompletionPorts,
  settings: CompletionSettings = completionSettings.read(),
) {
  return completionHandler({ completeText: completeTextOn(platform, ports, settings), log: platform.logger });
}

/** `POST /api/v1/ai/chat/completions`: OpenAI's Chat Completions over the project's bots. */
export function wireChatCompletions(
  platform: Pick<Platform, 'logger'>,
  ports: CompletionPorts,
  settings: CompletionSettings = completionSettings.read(),
) {
  return openAiGenerationHandler(
    { completeText: completeTextOn(platform, ports, settings), log: platform.logger },
    { name: 'chat completion', exchange: chatCompletionsExchange({ maxOutputTokens: settings.BOT_MAX_OUTPUT_TOKENS }) },
  );
}

/** `POST /api/v1/ai/responses`: OpenAI's Responses API over the project's bots, stateless. */
export function wireResponses(
  platform: Pick<Platform, 'logger'>,
  ports: CompletionPorts,
  settings: CompletionSettings = completionSettings.read(),
) {
  return openAiGenerationHandler(
    { completeText: completeTextOn(platform, ports, settings), log: platform.logger },
    { name: 'response', exchange: responsesExchange({ maxOutputTokens: settings.BOT_MAX_OUTPUT_TOKENS }) },
  );
}

/**
 * `POST /api/v1/ai/embeddings`: OpenAI's Embeddings, on the knowledge area's use case over the project's bots, the
 * credit ledger and the deployment's embeddings model (the one knowledge indexes use), or the deterministic hashed
 * embedding when it has none.
 */
export function wireEmbeddings(
  platform: Pick<Platform, 'logger'>,
  deps: { bots: Pick<BotStore, 'get'>; credits: CreditLedger; embeddings: EmbeddingsProvider | undefined },
) {
  const { logger } = platform;
  const embedTexts = makeEmbedTexts({
    bots: deps.bots,
    credits: deps.credits,
    embeddings: deps.embeddings ?? new HashedEmbeddings(),
    log: { error: (message, extra) => logger.error(message, extra ?? {}) },
  });
  return embeddingsHandler({ embedTexts, log: logger });
}

/** `GET /api/v1/ai/models` and `/models/{id}`: the project's bots as OpenAI's models. */
export function wireModels(deps: { bots: Pick<BotStore, 'get' | 'listByProject'> }) {
  return modelsHandler(deps);
}

function completeTextOn(platform: Pick<Platform, 'logger'>, ports: CompletionPorts, settings: CompletionSettings) {
  return makeCompleteText({ ...ports, maxOutputTokens: settings.BOT_MAX_OUTPUT_TOKENS, log: platform.logger });
}
