import type { KnowledgeSegmentRef } from '../bots/index.ts';
import { KnowledgeView } from './index/knowledge-view.ts';
import { Segment } from './index/segment.ts';
import type { KnowledgeObjectStore } from './knowledge-files.ts';

/**
 * Loaded segments and the views built over them, for the search function (and the ingest worker, which merges).
 * Segments never change, so a loaded one stays valid for as long as it is listed: a search after an ingest batch
 * loads only the new segment. Bounded by bytes (least recently used goes first); concurrent loads of one segment
 * share one read. A bot's view is rebuilt only when its segment list changed.
 */
export class SegmentCache {
  private readonly segments = new Map<string, { segment: Promise<Segment>; bytes: number }>();
  private readonly views = new Map<string, { signature: string; view: KnowledgeView }>();
  private bytes = 0;

  constructor(
    private readonly objects: KnowledgeObjectStore,
    private readonly maxBytes = 512 * 1024 * 1024,
    private readonly loadTimeoutMs = 10_000,
  ) {}

  /** The view over `refs` (the bot's listed segments), loading the segments not in memory, in parallel. */
  async view(botId: string, refs: KnowledgeSegmentRef[]): Promise<KnowledgeView> {
    const signature = refs.map((r) => r.key).join('\n');
    const hit = this.views.get(botId);
    if (hit && hit.signature === signature) {
      this.views.delete(botId);
      this.views.set(botId, hit);
      return hit.view;
    }
    const loaded = await Promise.all(refs.map(async (r) => ({ id: r.id, segment: await this.segment(r.key) })));
    const view = new KnowledgeView(loaded);
    this.views.set(botId, { signature, view });
    this.evict();
    return view;
  }

  /** One segment, from memory or from the bucket. */
  async segment(key: string): Promise<Segment> {
    const hit = this.segments.get(key);
    if (hit) {
      this.segments.delete(key);
      this.segments.set(key, hit);
      return hit.segment;
    }
    const entry = { bytes: 0, segment: this.load(key) };
    this.segments.set(key, entry);
    try {
      const segment = await entry.segment;
      entry.bytes = segment.byteLength;
      this.bytes += entry.bytes;
      return segment;
    } catch (error) {
      if (this.segments.get(key) === entry) this.segments.delete(key);
      throw error;
    }
  }

  /** A segment this process just built and stored: kept without reading it back. */
  remember(key: string, segment: Segment): void {
    if (this.segments.has(key)) return;
    this.segments.set(key, { segment: Promise.resolve(segment), bytes: segment.byteLength });
    this.bytes += segment.byteLength;
  }

  private async load(key: string): Promise<Segment> {
    return Segment.load(await this.objects.get(key, AbortSignal.timeout(this.loadTimeoutMs)));
  }

  /** Least recently used segments leave first; a view holding an evicted segment keeps it alive until it goes too. */
  private evict(): void {
    for (const [key, entry] of this.segments) {
      if (this.bytes <= this.maxBytes || this.segments.size <= 1) break;
      this.segments.delete(key);
      this.bytes -= entry.bytes;
    }
    while (this.views.size > 1000) this.views.delete(this.views.keys().next().value!);
  }
}
