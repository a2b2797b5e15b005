import { invalid, OpenAiRequestError } from './request-errors.ts';

/**
 * What one OpenAI-format request may hand the model: every caller string that reaches it (messages, instructions,
 * input items and the text an `item_reference` decodes to, answer-format names, descriptions and schemas, function
 * names, descriptions and schemas, `prediction`) counts toward one character budget, and every JSON Schema (functions
 * and answer formats together) toward one node budget. Counted as the request is read, so a request over either is
 * refused as soon as it passes it: nothing is decoded past the budget.
 */

/** All caller text of one request, as `/completion`'s prompt. */
export const CONVERSATION_MAX_CHARS = 120_000;
/** Objects and arrays of every JSON Schema of one request together (functions and answer formats). */
export const SCHEMA_MAX_NODES = 2_000;

export class RequestBudget {
  private chars = 0;
  private nodes = 0;

  /** Characters still free. */
  get remainingChars(): number {
    return CONVERSATION_MAX_CHARS - this.chars;
  }

  /** Schema nodes still free. */
  get remainingNodes(): number {
    return SCHEMA_MAX_NODES - this.nodes;
  }

  /** Counts `chars` characters; past the budget, the request is refused (nothing is charged). */
  spend(chars: number): void {
    this.chars += chars;
    if (this.chars > CONVERSATION_MAX_CHARS) throw overBudget();
  }

  /** Counts a JSON value as the text it is sent as (measured while walked: stops as soon as it passes the budget). */
  spendJson(value: unknown): void {
    this.spend(jsonChars(value, this.remainingChars));
  }

  /** Counts a schema's nodes toward the request's schema budget; past it, 400 naming `param`. */
  spendSchemaNodes(nodes: number, param: string): void {
    this.nodes += nodes;
    if (this.nodes > SCHEMA_MAX_NODES)
      throw invalid(
        param,
        `The request's JSON Schemas (functions and answer format together) hold more than ${SCHEMA_MAX_NODES} objects and arrays.`,
      );
  }
}

/** Worded as OpenAI words it, so clients recognise it (LangChain raises its `ContextOverflowError`). */
export function overBudget(): OpenAiRequestError {
  return new OpenAiRequestError(
    `This model's maximum context length is ${CONVERSATION_MAX_CHARS} characters: messages, instructions, ` +
      'function definitions, answer schemas and prediction together hold more. Shorten the request. Nothing was charged.',
    'messages',
    'context_length_exceeded',
  );
}

/**
 * The length of `value` as JSON text, walked without recursion and without building the text; stops as soon as it
 * passes `limit` (then answers something over it). Escapes are counted as the characters they stand for.
 */
export function jsonChars(value: unknown, limit: number): number {
  const stack: unknown[] = [value];
  let chars = 0;
  while (stack.length > 0 && chars <= limit) {
    const node = stack.pop();
    if (typeof node === 'string') chars += node.length + 2;
    else if (typeof node === 'number' || typeof node === 'boolean') chars += String(node).length;
    else if (node === null) chars += 4;
    else if (Array.isArray(node)) {
      chars += 2 + Math.max(0, node.length - 1);
      for (const item of node) stack.push(item);
    } else if (typeof node === 'object') {
      const keys = Object.keys(node);
      chars += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        chars += key.length + 3;
        stack.push((node as Record<string, unknown>)[key]);
      }
    }
  }
  return chars;
}
