import type { CompletionCaller, CompletionInput } from '../../complete-text.ts';
import type { ChatRequest } from './chat-request.ts';

/** What the OpenAI-format routes (chat, responses) parse a body into: the generation, without its transport. */
export type OpenAiGeneration = Omit<ChatRequest, 'stream' | 'includeUsage'>;

/** The generation use case's input for a parsed OpenAI-format request, within `budgetMs` from now. */
export function completionInputOf(
  caller: CompletionCaller,
  request: OpenAiGeneration,
  budgetMs: number,
): CompletionInput {
  return {
    caller,
    botId: request.botId,
    prompt: request.prompt,
    turns: request.turns,
    ...(request.extraInstructions === undefined ? {} : { extraInstructions: request.extraInstructions }),
    responseFormat: request.responseFormat,
    ...(request.jsonSchema === undefined ? {} : { jsonSchema: request.jsonSchema }),
    ...(request.tools === undefined ? {} : { tools: request.tools }),
    ...(request.toolChoice === undefined ? {} : { toolChoice: request.toolChoice }),
    ...(request.parallelToolCalls === undefined ? {} : { parallelToolCalls: request.parallelToolCalls }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
    parameters: request.parameters,
    ...(request.compileSchemas === undefined ? {} : { checkBeforeCharge: request.compileSchemas }),
    timeoutMs: budgetMs,
    deadline: Date.now() + budgetMs,
  };
}
