import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { overBudget, type RequestBudget } from './request-budget.ts';

/**
 * Message ids that carry their own text, so an `item_reference` to one of our non-streamed answers resolves without
 * storage: `msg_z_` + the text deflated, base64url.
 */

/** Prefix of message ids that carry their own text (non-streamed answers). */
const SELF_CONTAINED = 'msg_z_';

/** A message id that carries its text: `item_reference` to it needs no storage. */
export function selfContainedMessageId(text: string): string {
  return `${SELF_CONTAINED}${deflateRawSync(Buffer.from(text, 'utf8')).toString('base64url')}`;
}

/**
 * The text a self-contained id carries, counted toward the budget; undefined for any other id (or one that does not
 * decode). Inflated only as far as the budget has room: a character is at most 3 bytes of UTF-8, so what is left of
 * the budget times 3 bounds the bytes produced; an id that inflates past that is over the budget, and is refused
 * before its output exists.
 */
export function messageTextOfId(id: string, budget: RequestBudget): string | undefined {
  if (!id.startsWith(SELF_CONTAINED)) return undefined;
  let bytes: Buffer;
  try {
    bytes = inflateRawSync(Buffer.from(id.slice(SELF_CONTAINED.length), 'base64url'), {
      maxOutputLength: Math.max(1, budget.remainingChars * 3),
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw overBudget();
    return undefined;
  }
  const text = bytes.toString('utf8');
  budget.spend(text.length);
  return text;
}
