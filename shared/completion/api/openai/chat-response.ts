import { randomBytes } from 'node:crypto';
import type { CompletionOutput, FinishReason } from '../../completion.ts';
import { fontesOf } from '../fontes.ts';
import type { ModelUsage, ToolCall } from '../../../models/index.ts';

/**
 * OpenAI's Chat Completions answer shapes (docs/openai-compatible-api.md): the whole completion, and the
 * `chat.completion.chunk` events of a streamed one. `model` is the botId the caller named. `fontes` is this service's
 * extension: the knowledge files the answer was grounded on, the same list the native `/completion` returns.
 */

export interface ChatIdentity {
  id: string;
  /** Unix seconds. */
  created: number;
  botId: string;
}

export const newChatIdentity = (botId: string, now = Date.now()): ChatIdentity => ({
  id: `chatcmpl-${randomBytes(12).toString('base64url')}`,
  created: Math.floor(now / 1000),
  botId,
});

export function chatUsage(usage: ModelUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export const wireToolCall = (call: ToolCall) => ({
  id: call.id,
  type: 'function' as const,
  function: { name: call.name, arguments: call.arguments },
});

/**
 * The non-streamed answer. In JSON mode the content is the parsed value re-serialised (a code fence removed). With
 * tool calls, `content` is the text the model wrote beside them, or null.
 */
export function chatCompletion(chat: ChatIdentity, output: CompletionOutput): Record<string, unknown> {
  const text = output.responseFormat === 'json' ? JSON.stringify(output.data) : output.text;
  const calls = output.toolCalls;
  return {
    id: chat.id,
    object: 'chat.completion',
    created: chat.created,
    model: chat.botId,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: calls.length > 0 && !text ? null : text,
          ...(calls.length > 0 ? { tool_calls: calls.map(wireToolCall) } : {}),
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: output.finishReason,
      },
    ],
    ...(output.usage ? { usage: chatUsage(output.usage) } : {}),
    ...(output.sources.length ? { fontes: fontesOf(output.sources) } : {}),
  };
}

/** One `chat.completion.chunk`; `choices` empty for the usage chunk. */
export function chatChunk(
  chat: ChatIdentity,
  choice: { delta: Record<string, unknown>; finish_reason: FinishReason | null } | undefined,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: chat.id,
    object: 'chat.completion.chunk',
    created: chat.created,
    model: chat.botId,
    choices: choice ? [{ index: 0, delta: choice.delta, logprobs: null, finish_reason: choice.finish_reason }] : [],
    ...extra,
  };
}
