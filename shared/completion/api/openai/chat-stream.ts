import type { CompletionStream } from '../../completion.ts';
import { fontesOf } from '../fontes.ts';
import { chatChunk, chatUsage, type ChatIdentity } from './chat-response.ts';

/**
 * A streamed completion as OpenAI's Server-Sent Events (docs/openai-compatible-api.md): a `chat.completion.chunk` per
 * piece (the first delta carries `role`), tool calls as `delta.tool_calls` pieces (the first piece of a call with its
 * `index`, `id`, `type` and `function.name`, later ones with `index` and more `function.arguments`), a last chunk with
 * `finish_reason` (and this service's `fontes`), with `include_usage` a chunk with empty `choices` and `usage`, then
 * `data: [DONE]`. A failure after the stream began ends it with `data: {"error": …}` and no `[DONE]`.
 */
export async function* chatEventStream(
  chat: ChatIdentity,
  stream: CompletionStream,
  options: { includeUsage: boolean; errorBody: (error: unknown) => Record<string, unknown> },
): AsyncGenerator<string> {
  let first = true;
  // With include_usage, OpenAI puts `usage: null` on every chunk but the last.
  const usageNull = options.includeUsage ? { usage: null } : {};
  const delta = (fields: Record<string, unknown>) => {
    const out = first ? { role: 'assistant', ...fields } : fields;
    first = false;
    return out;
  };
  try {
    for await (const event of stream.events) {
      switch (event.type) {
        case 'text':
          yield sse(chatChunk(chat, { delta: delta({ content: event.text }), finish_reason: null }, usageNull));
          continue;
        case 'tool-call': {
          const piece = {
            index: event.index,
            id: event.id,
            type: 'function',
            function: { name: event.name, arguments: '' },
          };
          const fields = first ? { content: null, tool_calls: [piece] } : { tool_calls: [piece] };
          yield sse(chatChunk(chat, { delta: delta(fields), finish_reason: null }, usageNull));
          continue;
        }
        case 'tool-arguments':
          yield sse(
            chatChunk(
              chat,
              {
                delta: delta({ tool_calls: [{ index: event.index, function: { arguments: event.text } }] }),
                finish_reason: null,
              },
              usageNull,
            ),
          );
          continue;
        case 'end': {
          const fontes = stream.sources.length ? { fontes: fontesOf(stream.sources) } : {};
          yield sse(chatChunk(chat, { delta: {}, finish_reason: event.finishReason }, { ...usageNull, ...fontes }));
          if (options.includeUsage)
            yield sse(chatChunk(chat, undefined, { usage: event.usage ? chatUsage(event.usage) : null }));
          yield 'data: [DONE]\n\n';
        }
      }
    }
  } catch (error) {
    yield sse(options.errorBody(error));
  }
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
