import {
  deadlineError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
} from '../model-provider.ts';

/** Every offline answer starts with this label, so nobody mistakes it for a language model's answer. */
export const OFFLINE_LABEL = '[offline model]';

const EXCERPT_CHARS = 700;
const OUTLINE_ITEMS = 5;
const OUTLINE_ITEM_CHARS = 120;

/**
 * A small deterministic generator that needs no network and no model weights, so the whole completion flow (auth,
 * credits, knowledge, JSON answers) runs on a laptop and in tests. It answers from the best knowledge excerpt when
 * the bot has one, and otherwise echoes an outline of the prompt. The same request always gets the same answer.
 * Token counts are estimated (about 4 characters per token) and reported as usage. Streamed, the same answer comes
 * a word at a time.
 */
export class OfflineModelProvider implements ModelProvider {
  readonly name = 'offline';

  async generate(request: ModelRequest): Promise<ModelReply> {
    if (request.signal.aborted) throw deadlineError(request.signal.reason);
    const answer = offlineAnswer(request);
    const text = request.responseFormat === 'json' ? JSON.stringify(answer.json) : answer.text;
    return {
      text,
      model: 'offline',
      stopReason: 'end_turn',
      usage: {
        inputTokens:
          estimateTokens(request.system) +
          (request.turns ?? [{ text: request.prompt }]).reduce((sum, turn) => sum + estimateTokens(turn.text), 0),
        outputTokens: estimateTokens(text),
      },
    };
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const reply = await this.generate(request);
    for (const piece of reply.text.match(/\s*\S+\s*/g) ?? [reply.text]) {
      // A turn of the event loop per piece, as a network stream would give: the caller can write each one out.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (request.signal.aborted) throw deadlineError(request.signal.reason);
      yield { type: 'text', text: piece };
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

function offlineAnswer(request: ModelRequest): OfflineAnswer {
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
