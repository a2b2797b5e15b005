import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { openAiErrors, toOpenAiError } from '#shared/completion/api/openai/openai-errors.ts';
import { completionInputOf } from '#shared/completion/api/openai/completion-input.ts';
import { parseResponsesRequest } from '#shared/completion/api/openai/responses-request.ts';
import {
  newResponseIdentity,
  responseEventStream,
  responseOf,
} from '#shared/completion/api/openai/responses-response.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { botsApiFunction } from '#shared/auth/api/presets.ts';
import { callerGoneSignal, httpStreamingFunction, SSE_HEADERS, streamingResult } from '#shared/http/streaming.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { completeTextFromConfig } from '#functions/_wiring/complete-text.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root, built once per cold start: the same auth, rate limit, credit ledger, bots, knowledge search and
// model providers as `POST /api/v1/ai/chat/completions`.
const cfg = config();
const logger = createLogger('responses');
const metrics = new PowertoolsMetrics('responses');
const table = dynamoTable(cfg);
const completeText = await completeTextFromConfig(cfg, { table, logger, metrics });

/** Time kept between the end of generation and the Lambda's own timeout, for the refund and the answer. */
const LAMBDA_MARGIN_MS = 2_000;

/**
 * `POST /api/v1/ai/responses`: OpenAI's Responses API over a project's bots, stateless: the same use
 * case, auth, rate limit, credits, bot resolution, knowledge and refunds as chat completions; streamed as OpenAI's
 * named events. Errors use OpenAI's body.
 */
export const handler = botsApiFunction({
  logger,
  metrics,
  base: httpStreamingFunction,
  errorBody: openAiErrors(logger),
  auth: botsApiAuthFromConfig(cfg, table, metrics),
  body: jsonObjectBody(),
}).handler(async (event, context) => {
  const request = parseResponsesRequest(event.parsedBody, { maxOutputTokens: cfg.BOT_MAX_OUTPUT_TOKENS });
  const identity = newResponseIdentity();
  const caller = { projectId: event.auth.grant.projectId, monthlyBotCredits: event.auth.grant.monthlyBotCredits };
  const callerGone = callerGoneSignal(context);
  const input = {
    ...completionInputOf(caller, request, context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS),
    ...(callerGone ? { callerGone } : {}),
  };
  if (!request.stream) {
    const output = await completeText(input);
    logger.info('response', {
      model: output.model,
      stream: false,
      toolCalls: output.toolCalls.length,
      ...(output.usage ?? {}),
    });
    return json(200, responseOf(identity, request, output));
  }
  const stream = await completeText.stream(input);
  const events = responseEventStream(identity, request, stream, (error) => {
    const { error: body } = toOpenAiError(error);
    return { code: body.code, message: body.message, param: body.param };
  });
  return streamingResult(200, SSE_HEADERS, events);
});
