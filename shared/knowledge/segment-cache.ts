import type { KnowledgeSegmentRef } from '../bots/index.ts';
import type { Logger } from '../kernel/logger.ts';
import { type Metrics, noMetrics } from '../kernel/metrics.ts';
import { metricNames } from '../contract/metrics.ts';
import { KnowledgeView, type LoadedSegment } from './index/knowledge-view.ts';
import { SegmentFormatError } from './index/segment-format.ts';
import type { PieceSource, SegmentReader } from './index/segment-reader.ts';
import { openSegment, type RangedObjects } from './index/segment.ts';
import type { KnowledgeObjectStore } from './knowledge-files.ts';
import { PieceCache } from './piece-cache.ts';

export interface SegmentCacheOptions {
  /** Memory for opened segments, views and pieces together (default 128 MB). */
  memoryBytes?: number;
  /** Local disk for pieces pushed out of memory (default 0: none). */
  diskBytes?: number;
  diskDir?: string;
  /** Time one read from the bucket may take (default 10 s). */
  readTimeoutMs?: number;
  logger?: Logger;
  metrics?: Metrics;
}

/**
 * Opened segments, the views built over them, and their pieces, for the search path (search, completion, chat,
 * responses) and the ingest worker. Everything is bounded by bytes, least recently used out first: a segment's tail
 * and the view's few bytes per excerpt are what stays; postings and texts are pieces fetched by range per query
 * (./piece-cache.ts), so memory does not grow with a bot's text. Segments never change, so a view stays valid for
 * as long as its bot lists the same segments: a search after an ingest batch opens only the new segment.
 *
 * A segment that turns out truncated or damaged in storage is set aside with a logged error and a metric: the bot
 * is searched without its excerpts (its documents and markers still decide which versions are searchable when its
 * tail could be read), until a merge replaces it.
 */
export class SegmentCache {
  readonly pieces: PieceCache;
  private readonly readers = new Map<string, { reader: Promise<SegmentReader>; bytes: number }>();
  private readonly views = new Map<string, { signature: string; view: KnowledgeView; bytes: number }>();
  private readonly unreadable = new Map<string, string>();
  private structureBytes = 0;
  private readonly maxStructureBytes: number;
  private readonly ranged: RangedObjects;
  private readonly options: SegmentCacheOptions;

  constructor(
    private readonly objects: KnowledgeObjectStore,
    options: SegmentCacheOptions | number = {},
  ) {
    const o: SegmentCacheOptions = typeof options === 'number' ? { memoryBytes: options } : options;
    this.options = o;
    const memory = o.memoryBytes ?? 128 * 1024 * 1024;
    this.maxStructureBytes = Math.floor(memory / 3);
    this.pieces = new PieceCache({
      memoryBytes: memory - this.maxStructureBytes,
      ...(o.diskBytes ? { diskBytes: o.diskBytes } : {}),
      ...(o.diskDir ? { diskDir: o.diskDir } : {}),
    });
    const timeout = () => AbortSignal.timeout(o.readTimeoutMs ?? 10_000);
    this.ranged = {
      getRange: (key, start, end) => this.objects.getRange(key, start, end, timeout()),
      getTail: (key, length) => this.objects.getTail(key, length, timeout()),
    };
  }

  /** Bytes held in memory: opened segments, views and decoded pieces (what the bound given limits). */
  get memoryBytes(): number {
    return this.structureBytes + this.pieces.memoryBytes;
  }

  /** The view over `refs` (the bot's listed segments), opening the segments not open yet, in parallel. */
  async view(botId: string, refs: KnowledgeSegmentRef[]): Promise<KnowledgeView> {
    const signature = `${refs.map((r) => r.key).join('\n')}|${refs.filter((r) => this.unreadable.has(r.key)).length}`;
    const hit = this.views.get(botId);
    if (hit && hit.signature === signature) {
      this.views.delete(botId);
      this.views.set(botId, hit);
      return hit.view;
    }
    const opened = await Promise.allSettled(refs.map((r) => this.segment(r.key)));
    const loaded: LoadedSegment[] = [];
    for (const [i, result] of opened.entries()) {
      if (result.status === 'rejected') {
        if (!(result.reason instanceof SegmentFormatError)) throw result.reason;
        continue; // not even its tail could be read: searched as if it were not listed
      }
      loaded.push({ id: refs[i]!.id, segment: result.value });
    }
    await Promise.all(
      loaded.map(async (entry) => {
        if (this.unreadable.has(entry.segment.key)) return;
        try {
          entry.lengths = await entry.segment.searchLengths();
        } catch (error) {
          if (!(error instanceof SegmentFormatError)) throw error;
          this.setAside(entry.segment.key, error);
        }
      }),
    );
    const view = new KnowledgeView(loaded);
    // The signature as it stands now: a segment set aside while opening counts.
    const settled = `${refs.map((r) => r.key).join('\n')}|${refs.filter((r) => this.unreadable.has(r.key)).length}`;
    const old = this.views.get(botId);
    this.views.delete(botId);
    this.views.set(botId, { signature: settled, view, bytes: view.memoryBytes });
    this.structureBytes += view.memoryBytes - (old?.bytes ?? 0);
    this.evict();
    return view;
  }

  /** One segment, opened (its tail read) or from memory. */
  async segment(key: string): Promise<SegmentReader> {
    const hit = this.readers.get(key);
    if (hit) {
      this.readers.delete(key);
      this.readers.set(key, hit);
      return hit.reader;
    }
    const entry = { bytes: 0, reader: openSegment(key, this.ranged, this.sourceFor(key)) };
    this.readers.set(key, entry);
    try {
      const reader = await entry.reader;
      entry.bytes = reader.memoryBytes;
      this.structureBytes += entry.bytes;
      this.evict();
      return reader;
    } catch (error) {
      if (this.readers.get(key) === entry) this.readers.delete(key);
      if (error instanceof SegmentFormatError) this.setAside(key, error);
      throw error;
    }
  }

  /** Whether a segment was found damaged (and is being searched around). */
  isUnreadable(key: string): boolean {
    return this.unreadable.has(key);
  }

  /** Sets a damaged segment aside: logged and counted once per process, its pieces dropped, views rebuilt. */
  setAside(key: string, error: unknown): void {
    if (this.unreadable.has(key)) return;
    this.unreadable.set(key, String(error));
    if (error instanceof SegmentFormatError) error.key ??= key;
    this.options.logger?.error('knowledge segment unreadable; the bot is searched without it', {
      key,
      cause: String(error),
    });
    (this.options.metrics ?? noMetrics).count(metricNames.knowledgeSegmentsUnreadable);
    this.pieces.forgetObject(key);
  }

  /** The piece source of one segment: a damaged piece's error names the segment. */
  private sourceFor(key: string): PieceSource {
    const named = (error: unknown) => {
      if (error instanceof SegmentFormatError) error.key ??= key;
      return error;
    };
    return {
      piece: (id, fetch, decode, options) =>
        this.pieces.piece(
          id,
          fetch,
          (raw) => {
            try {
              return decode(raw);
            } catch (error) {
              throw named(error);
            }
          },
          options,
        ),
      derived: (id, compute) =>
        this.pieces.derived(id, () =>
          compute().catch((error: unknown) => {
            throw named(error);
          }),
        ),
    };
  }

  /** Least recently used first; a view goes with any segment it holds. */
  private evict(): void {
    while (this.structureBytes > this.maxStructureBytes && (this.views.size > 1 || this.readers.size > 1)) {
      const oldestView = this.views.size > 1 ? this.views.entries().next().value : undefined;
      if (oldestView) {
        this.views.delete(oldestView[0]);
        this.structureBytes -= oldestView[1].bytes;
        continue;
      }
      const [key, entry] = this.readers.entries().next().value!;
      this.readers.delete(key);
      this.structureBytes -= entry.bytes;
      for (const [bot, v] of this.views)
        if (v.view.segments.some((s) => s.segment.key === key)) {
          this.views.delete(bot);
          this.structureBytes -= v.bytes;
        }
    }
  }
}
