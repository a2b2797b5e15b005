import { createHash } from 'node:crypto';
import {
  conversationOf,
  deadlineError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
  type ToolCall,
  type ToolDefinition,
} from '../../models/index.ts';
import { boundedSample } from './schema-sample.ts';

/** Every offline answer starts with this label, so nobody mistakes it for a language model's answer. */
export const OFFLINE_LABEL = '[offline model]';

const EXCERPT_CHARS = 700;
/** Used only when a request carries no ceiling (the service always sends one). */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
const OUTLINE_ITEMS = 5;
const OUTLINE_ITEM_CHARS = 120;

/**
 * A small deterministic generator that needs no network and no model weights, so the whole completion flow (auth,
 * credits, knowledge, JSON answers) runs on a laptop and in tests. It answers from the best knowledge excerpt when
 * the bot has one, and otherwise echoes an outline of the prompt. The same request always gets the same answer.
 * Token counts are estimated (about 4 characters per token) and reported as usage. Streamed, the same answer comes
 * a word at a time.
 *
 * Tools: when the request carries functions and the conversation does not end with their results, it calls one
 * (the named one, else the first) with arguments generated from its schema (`schema-sample.ts`); after results, it
 * answers with text that quotes them. A JSON Schema answer is a value generated from the schema. `stop` cuts the
 * answer before the first stop sequence; `maxOutputTokens` cuts it at that many estimated tokens (`length`). A value
 * generated from a schema is bounded by the same ceiling however the schema nests: it stops growing there (`length`).
 */
export class OfflineModelProvider implements ModelProvider {
  readonly name = 'offline';

  async generate(request: ModelRequest): Promise<ModelReply> {
    if (request.signal.aborted) throw deadlineError(request.signal.reason);
    const usage = (text: string) => ({
      inputTokens:
        estimateTokens(request.system) +
        conversationOf(request).reduce((sum, turn) => sum + estimateTokens(turn.text), 0),
      outputTokens: estimateTokens(text),
    });
    const maxChars = (request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS) * 4;
    const tool = toolToCall(request);
    if (tool) {
      const args = boundedSample(tool.parameters, request.prompt, maxChars);
      const call: ToolCall = {
        id: `call_${createHash('sha256')
          .update(JSON.stringify([conversationOf(request), tool.name]))
          .digest('base64url')
          .slice(0, 24)}`,
        name: tool.name,
        arguments: JSON.stringify(args.value),
      };
      const stopReason = args.complete ? 'tool_calls' : 'length';
      return { text: '', toolCalls: [call], model: 'offline', stopReason, usage: usage(call.arguments) };
    }
    const answer = offlineAnswer(request);
    let text = answer.text;
    let stopReason = 'end_turn';
    if (request.responseFormat === 'json' && request.jsonSchema) {
      const sampled = boundedSample(request.jsonSchema.schema, request.prompt, maxChars);
      text = JSON.stringify(sampled.value);
      if (!sampled.complete) stopReason = 'length';
    } else if (request.responseFormat === 'json') text = JSON.stringify(answer.json);
    for (const sequence of request.parameters?.stop ?? []) {
      const at = sequence ? text.indexOf(sequence) : -1;
      if (at !== -1) text = text.slice(0, at);
    }
    if (request.maxOutputTokens !== undefined && estimateTokens(text) > request.maxOutputTokens) {
      text = text.slice(0, request.maxOutputTokens * 4);
      stopReason = 'length';
    }
    return { text, model: 'offline', stopReason, usage: usage(text) };
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const reply = await this.generate(request);
    for (const piece of reply.text.match(/\s*\S+\s*/g) ?? (reply.text ? [reply.text] : [])) {
      // A turn of the event loop per piece, as a network stream would give: the caller can write each one out.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (request.signal.aborted) throw deadlineError(request.signal.reason);
      yield { type: 'text', text: piece };
    }
    for (const [index, call] of (reply.toolCalls ?? []).entries()) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (request.signal.aborted) throw deadlineError(request.signal.reason);
      yield { type: 'tool-call', index, id: call.id, name: call.name };
      // The arguments in two pieces, as models stream them.
      const half = Math.ceil(call.arguments.length / 2);
      for (const text of [call.arguments.slice(0, half), call.arguments.slice(half)])
        if (text) yield { type: 'tool-arguments', index, text };
    }
    yield {
      type: 'end',
      model: reply.model,
      ...(reply.usage ? { usage: reply.usage } : {}),
      ...(reply.stopReason ? { stopReason: reply.stopReason } : {}),
    };
  }
}

interface OfflineAnswer {
  text: string;
  json: Record<string, unknown>;
}

/** The function to call: none with `tool_choice: none` or right after the functions' results. */
function toolToCall(request: ModelRequest): ToolDefinition | undefined {
  const tools = request.tools ?? [];
  if (tools.length === 0 || request.toolChoice === 'none') return undefined;
  if (conversationOf(request).at(-1)?.role === 'tool') return undefined;
  const choice = request.toolChoice;
  if (typeof choice === 'object') return tools.find((t) => t.name === choice.name);
  return tools[0];
}

function offlineAnswer(request: ModelRequest): OfflineAnswer {
  const results = trailingToolResults(request);
  if (results.length > 0) {
    const lines = results.map((r) => `- ${r.name}: ${clip(collapse(r.text), OUTLINE_ITEM_CHARS)}`);
    return {
      text: `${OFFLINE_LABEL} No language model is connected. The functions answered:\n${lines.join('\n')}`,
      json: { offline: true, results: results.map((r) => ({ name: r.name, result: clip(collapse(r.text), 200) })) },
    };
  }
  const best = [...request.excerpts].sort((a, b) => b.score - a.score || a.fileName.localeCompare(b.fileName))[0];
  if (best) {
    const excerpt = clip(collapse(best.text), EXCERPT_CHARS);
    return {
      text: `${OFFLINE_LABEL} No language model is connected; the closest passage in the bot's knowledge is from "${best.fileName}":\n\n${excerpt}`,
      json: { offline: true, answer: excerpt, source: best.fileName },
    };
  }
  const outline = promptOutline(request.prompt);
  const words = countWords(request.prompt);
  return {
    text: `${OFFLINE_LABEL} No language model is connected. Your prompt (${words} ${words === 1 ? 'word' : 'words'}) in outline:\n${outline.map((line) => `- ${line}`).join('\n')}`,
    json: { offline: true, outline, words },
  };
}

/** The tool results the conversation ends with, each with the name of the function whose call it answers. */
function trailingToolResults(request: ModelRequest): { name: string; text: string }[] {
  const turns = conversationOf(request);
  const names = new Map<string, string>();
  for (const turn of turns)
    if (turn.role === 'assistant') for (const call of turn.toolCalls ?? []) names.set(call.id, call.name);
  const results: { name: string; text: string }[] = [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role !== 'tool') break;
    results.unshift({ name: names.get(turn.toolCallId) ?? 'function', text: turn.text });
  }
  return results;
}

/** The first few sentences or lines of the prompt, each clipped. */
function promptOutline(prompt: string): string[] {
  const pieces = prompt
    .split(/\n+|(?<=[.!?])\s+/)
    .map((piece) => collapse(piece))
    .filter((piece) => piece.length > 0);
  const outline = pieces.slice(0, OUTLINE_ITEMS).map((piece) => clip(piece, OUTLINE_ITEM_CHARS));
  if (pieces.length > OUTLINE_ITEMS) outline.push(`(${pieces.length - OUTLINE_ITEMS} more)`);
  return outline.length ? outline : ['(empty)'];
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);
const countWords = (text: string) => (text.trim() ? text.trim().split(/\s+/).length : 0);
const estimateTokens = (text: string) => Math.ceil(text.length / 4);
