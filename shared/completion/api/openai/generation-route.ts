import type { ProjectApiTokenGrant } from '../../../auth/index.ts';
import { callerGoneSignal, SSE_HEADERS, streamingResult } from '../../../http/streaming.ts';
import { type Context, type HttpEvent, type HttpResult, json } from '../../../http/types.ts';
import type { Logger } from '../../../kernel/logger.ts';
import type { CompleteText } from '../../complete-text.ts';
import type { CompletionInput, CompletionOutput, CompletionStream } from '../../completion.ts';
import { LAMBDA_MARGIN_MS } from '../lambda-margin.ts';
import type { OpenAiCompletion } from './request-rules.ts';

/**
 * What one OpenAI-format generation route makes of a request body: the completion it asks for, and how the answer is
 * written, whole or as Server-Sent Events. Chat Completions and Responses differ only there.
 */
export interface OpenAiExchange {
  completion: OpenAiCompletion;
  stream: boolean;
  /** The whole answer's body. */
  answer(output: CompletionOutput): Record<string, unknown>;
  /** The streamed answer, event by event; a failure after the first is written as an event, not thrown. */
  events(stream: CompletionStream): AsyncIterable<string>;
}

/**
 * An OpenAI-format generation route once the project API token passed: the body read into an exchange, the
 * completion run with all the function's time left (OpenAI's wire has no `timeoutMs`) and aborted as soon as the
 * caller goes away, answered whole or streamed. The status line leaves with the first streamed piece, so a failure
 * before it still gets its own status (in OpenAI's error body, `openAiErrors`).
 */
export function openAiGenerationHandler(
  deps: { completeText: CompleteText; log: Pick<Logger, 'info'> },
  route: {
    /** The log line of a whole answer. */
    name: string;
    exchange(body: Record<string, unknown>): OpenAiExchange;
  },
) {
  return async function serveGeneration(
    event: HttpEvent<Record<string, unknown>, { grant: ProjectApiTokenGrant }>,
    context: Context,
  ): Promise<HttpResult> {
    const exchange = route.exchange(event.parsedBody);
    const callerGone = callerGoneSignal(context);
    const budgetMs = context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS;
    const input: CompletionInput = {
      ...exchange.completion,
      caller: { projectId: event.auth.grant.projectId, monthlyBotCredits: event.auth.grant.monthlyBotCredits },
      timeoutMs: budgetMs,
      deadline: Date.now() + budgetMs,
      ...(callerGone ? { callerGone } : {}),
    };
    if (!exchange.stream) {
      const output = await deps.completeText(input);
      deps.log.info(route.name, {
        model: output.model,
        stream: false,
        toolCalls: output.toolCalls.length,
        ...(output.usage ?? {}),
      });
      return json(200, exchange.answer(output));
    }
    const stream = await deps.completeText.stream(input);
    return streamingResult(200, SSE_HEADERS, exchange.events(stream));
  };
}
