import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { openAiErrors, wireResponses } from '#shared/completion/index.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { httpStreamingFunction } from '#shared/http/streaming.ts';
import { completionPorts } from '#functions/_wiring/completion-ports.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root, built once per cold start: the same auth, rate limit, credit ledger, bots, knowledge search and
// model providers as `POST /api/v1/ai/chat/completions`.
const platform = meteredPlatform('responses');
const { logger, metrics } = platform;

/** `POST /api/v1/ai/responses`: OpenAI's Responses API over a project's bots, stateless. Errors use OpenAI's body. */
export const handler = botsApiFunction({
  logger,
  metrics,
  base: httpStreamingFunction,
  errorBody: openAiErrors(logger),
  auth: wireBotsApiAuth(platform),
  body: jsonObjectBody(),
}).handler(wireResponses(platform, await completionPorts(platform)));
