import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { completionInputOf } from '#shared/completion/api/openai/completion-input.ts';
import { config } from '#shared/kernel/config.ts';
import { completionSettings } from '#shared/completion/index.ts';
import { openAiErrors, toOpenAiError } from '#shared/completion/api/openai/openai-errors.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { botsApiFunction } from '#shared/auth/api/presets.ts';
import { callerGoneSignal, httpStreamingFunction, SSE_HEADERS, streamingResult } from '#shared/http/streaming.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { parseChatRequest } from '#shared/completion/api/openai/chat-request.ts';
import { chatCompletion, newChatIdentity } from '#shared/completion/api/openai/chat-response.ts';
import { chatEventStream } from '#shared/completion/api/openai/chat-stream.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { completeTextFromConfig } from '#functions/_wiring/complete-text.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root, built once per cold start: the same auth, rate limit, credit ledger, bots, knowledge search and
// model providers as `POST /api/v1/ai/completion`.
const cfg = config();
const logger = createLogger('chat-completions');
const metrics = new PowertoolsMetrics('chat-completions');
const table = dynamoTable(cfg);
const limits = { maxOutputTokens: completionSettings.read().BOT_MAX_OUTPUT_TOKENS };
const completeText = await completeTextFromConfig({ cfg, table, logger, metrics });

/** Time kept between the end of generation and the Lambda's own timeout, for the refund and the answer. */
const LAMBDA_MARGIN_MS = 2_000;

/**
 * `POST /api/v1/ai/chat/completions`: OpenAI's Chat Completions over a project's bots (`model` is the botId), with the
 * caller's functions (tools) and JSON Schema answers, 1 bot credit per request; refunded when the model fails or
 * produces nothing, kept once the model was called however the caller leaves (the call is then aborted at once).
 * With `stream: true` the answer is sent as Server-Sent Events as the model produces it; the status line leaves with
 * the first piece, so a failure before it still gets its own status. Errors use OpenAI's body.
 */
export const handler = botsApiFunction({
  logger,
  metrics,
  base: httpStreamingFunction,
  errorBody: openAiErrors(logger),
  auth: botsApiAuthFromConfig(cfg, table, metrics),
  body: jsonObjectBody(),
}).handler(async (event, context) => {
  const request = parseChatRequest(event.parsedBody, limits);
  const chat = newChatIdentity(request.botId);
  const caller = { projectId: event.auth.grant.projectId, monthlyBotCredits: event.auth.grant.monthlyBotCredits };
  const callerGone = callerGoneSignal(context);
  const input = {
    ...completionInputOf(caller, request, context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS),
    ...(callerGone ? { callerGone } : {}),
  };
  if (!request.stream) {
    const output = await completeText(input);
    logger.info('chat completion', {
      model: output.model,
      stream: false,
      toolCalls: output.toolCalls.length,
      ...(output.usage ?? {}),
    });
    return json(200, chatCompletion(chat, output));
  }
  const stream = await completeText.stream(input);
  const events = chatEventStream(chat, stream, {
    includeUsage: request.includeUsage,
    errorBody: (error) => ({ error: toOpenAiError(error).error }),
  });
  return streamingResult(200, SSE_HEADERS, events);
});
