import type { CompletionStream } from '../../complete-text.ts';
import { fontesOf } from '../fontes.ts';
import { chatChunk, chatUsage, finishReason, type ChatIdentity } from './chat-response.ts';

/**
 * A streamed completion as OpenAI's Server-Sent Events (contract §12): a `chat.completion.chunk` per piece (the
 * first delta carries `role`), a last chunk with `finish_reason` (and this service's `fontes`), with
 * `include_usage` a chunk with empty `choices` and `usage`, then `data: [DONE]`. A failure after the stream began
 * ends it with `data: {"error": …}` and no `[DONE]`.
 */
export async function* chatEventStream(
  chat: ChatIdentity,
  stream: CompletionStream,
  options: { includeUsage: boolean; errorBody: (error: unknown) => Record<string, unknown> },
): AsyncGenerator<string> {
  let first = true;
  try {
    for await (const event of stream.events) {
      if (event.type === 'text') {
        const delta = first ? { role: 'assistant', content: event.text } : { content: event.text };
        first = false;
        yield sse(chatChunk(chat, { delta, finish_reason: null }));
        continue;
      }
      const fontes = stream.sources.length ? { fontes: fontesOf(stream.sources) } : {};
      yield sse(chatChunk(chat, { delta: {}, finish_reason: finishReason(event.truncated) }, fontes));
      if (options.includeUsage)
        yield sse(chatChunk(chat, undefined, { usage: event.usage ? chatUsage(event.usage) : null }));
      yield 'data: [DONE]\n\n';
    }
  } catch (error) {
    yield sse(options.errorBody(error));
  }
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
