import type { KnowledgeSegmentRef } from '../bots/index.ts';
import type { Logger } from '../kernel/logger.ts';
import type { SegmentReader } from './index/segment-reader.ts';
import { crc32 } from 'node:zlib';
import {
  type DeleteMarker,
  openSegment,
  SEGMENT_FORMAT,
  SegmentFormatError,
  unboundedPieces,
} from './index/segment.ts';
import { mergeSegments } from './index/segment-merge.ts';
import { SequentialReader } from './index/sequential-reader.ts';
import { knowledgeObjectKeys, newSegmentId } from './knowledge-files.ts';

import type { KnowledgeObjectStore } from './knowledge-files.ts';

/** A merged object is read back in pieces of this size (a window of the sequential reader). */
const READ_BACK_BYTES = 1024 * 1024;

/**
 * A merge's output: the merged segment, written as it is produced, then read back whole (its CRC-32 and its counts
 * against what was written); undefined (and deleted) when the check fails, so a damaged merge is never published.
 */
export function makeWriteMergedSegment(deps: { objects: KnowledgeObjectStore; logger: Logger }, clock: () => Date) {
  return async function writeChecked(
    botId: string,
    inputs: SegmentReader[],
    keep: (segment: number, doc: number) => boolean,
    markers: DeleteMarker[],
  ): Promise<KnowledgeSegmentRef | undefined> {
    const at = clock();
    const id = newSegmentId(at);
    const key = knowledgeObjectKeys.segment(botId, id);
    const expected = { docs: 0, excerpts: 0 };
    for (const [s, segment] of inputs.entries())
      for (const [d, doc] of segment.docs.entries())
        if (keep(s, d)) {
          expected.docs++;
          expected.excerpts += doc.count;
        }
    // The object's CRC-32 as it is written; the same must come back from the bucket.
    let written = 0;
    const stream = async function* () {
      for await (const chunk of mergeSegments(inputs, keep, { markers, builtAt: at })) {
        written = crc32(chunk, written);
        yield chunk;
      }
    };
    const bytes = await deps.objects.putStream(key, stream(), 'application/octet-stream');
    try {
      const timeout = () => AbortSignal.timeout(30_000);
      const read = (start: number, end: number) => deps.objects.getRange(key, start, end, timeout());
      const back = new SequentialReader(read, 0, bytes);
      let crc = 0;
      for (let at = 0; at < bytes; at += READ_BACK_BYTES)
        crc = crc32(await back.take(Math.min(READ_BACK_BYTES, bytes - at)), crc);
      if (crc !== written) throw new SegmentFormatError('the stored object differs from what was written');
      const segment = await openSegment(
        key,
        {
          getRange: (k, start, end) => deps.objects.getRange(k, start, end, timeout()),
          getTail: (k, length) => deps.objects.getTail(k, length, timeout()),
        },
        unboundedPieces(),
      );
      await segment.lengths();
      if (segment.docs.length !== expected.docs || segment.excerptCount !== expected.excerpts)
        throw new SegmentFormatError('the stored segment does not hold what was written');
    } catch (error) {
      await deps.objects.delete([key]).catch(() => undefined);
      deps.logger.error('merged knowledge segment failed its read-back check; not published', {
        botId,
        key,
        cause: String(error),
      });
      return undefined;
    }
    return { id, key, ...expected, markers: markers.length, bytes, format: SEGMENT_FORMAT };
  };
}
