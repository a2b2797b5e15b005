import type { ModelReply, ModelStreamEvent } from '#shared/models/index.ts';

/** A fake provider's `stream`: its `generate` answer in word pieces, then the end event; its failure is thrown. */
export async function* streamOfReply(reply: Promise<ModelReply>): AsyncIterable<ModelStreamEvent> {
  const answer = await reply;
  for (const piece of answer.text.match(/\s*\S+\s*/g) ?? [answer.text]) yield { type: 'text', text: piece };
  yield {
    type: 'end',
    model: answer.model,
    ...(answer.usage ? { usage: answer.usage } : {}),
    ...(answer.stopReason ? { stopReason: answer.stopReason } : {}),
  };
}
