import { buildSegment, type DeleteMarker, SEGMENT_FORMAT, type SegmentDocumentInput } from './index/segment.ts';
import { knowledgeObjectKeys, newSegmentId } from './knowledge-files.ts';

import type { IngestDeps } from './ingest-deps.ts';

/** Writes a batch's segment and lists it on the bot; false when the bot is gone. */
export function makePublishSegment(deps: IngestDeps, clock: () => Date) {
  return async function publish(
    botId: string,
    docs: SegmentDocumentInput[],
    markers: DeleteMarker[],
  ): Promise<boolean> {
    const at = clock();
    const id = newSegmentId(at);
    const key = knowledgeObjectKeys.segment(botId, id);
    const bytes = buildSegment(docs, {
      markers,
      builtAt: at,
      ...(deps.embeddings ? { embeddingModel: deps.embeddings.model } : {}),
    });
    // A batch of large files makes a segment past one request's size: streamed in parts.
    await deps.objects.putStream(key, [bytes], 'application/octet-stream');
    const listed = await deps.index.addSegment(botId, {
      id,
      key,
      docs: docs.length,
      excerpts: docs.reduce((n, d) => n + d.excerpts.length, 0),
      markers: markers.length,
      bytes: bytes.length,
      format: SEGMENT_FORMAT,
    });
    if (!listed) await deps.objects.delete([key]).catch(() => undefined);
    else
      deps.logger.info('knowledge segment published', { botId, segment: id, docs: docs.length, bytes: bytes.length });
    return listed;
  };
}
