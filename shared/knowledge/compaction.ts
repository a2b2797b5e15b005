import type { KnowledgeSegmentRef } from '../bots/index.ts';
import type { Logger } from '../kernel/logger.ts';
import type { KnowledgeView } from './index/knowledge-view.ts';
import { type DeleteMarker, RANGED_FORMAT, SegmentFormatError } from './index/segment.ts';
import { makeWriteMergedSegment } from './write-merged-segment.ts';
import type { KnowledgeIndexStore, KnowledgeObjectStore } from './knowledge-files.ts';
import type { SegmentCache } from './segment-cache.ts';

export interface CompactionOptions {
  /** Segments of one size tier are merged once there are this many of them (default 8). */
  mergeFactor?: number;
  /**
   * How long a delete marker outlives the documents it covers (default 1 h): longer than any ingest invocation runs
   * (the worker's timeout is 600 s), so an ingest that read a file just before its delete can never publish it
   * after its marker is gone.
   */
  markerGraceMs?: number;
  /** How long a merged-away segment object is kept for searches that listed it just before (default 10 min). */
  retireAfterMs?: number;
  /** How long a merge holds the bot (default 5 min); another worker finding it held leaves the merge to it. */
  leaseMs?: number;
}

export interface CompactionDeps {
  index: KnowledgeIndexStore;
  objects: KnowledgeObjectStore;
  segments: SegmentCache;
  logger: Logger;
  clock?: () => Date;
  options?: CompactionOptions;
}

/**
 * Background merging of a bot's segments (size-tiered, as Lucene and LSM stores do): every ingest batch adds one
 * small segment; once `mergeFactor` segments share a size tier (sizes within a factor `mergeFactor`), they are
 * merged into one of the next tier. A file is thus rewritten about log_F(files) times over its life, so the work per
 * file stays proportional to the file, and a bot has a few dozen segments at most (the bot item stays small, a
 * search touches few). A merge keeps only the searchable documents (replaced and deleted ones go) and the delete
 * markers still needed; a segment more than half of which is no longer searchable joins the next merge. The merged
 * segment replaces its inputs in one conditional write, so a search sees the inputs or the result, never both.
 */
export function makeCompaction(deps: CompactionDeps) {
  const clock = deps.clock ?? (() => new Date());
  const factor = deps.options?.mergeFactor ?? 8;
  const graceMs = deps.options?.markerGraceMs ?? 3_600_000;
  const retireAfterMs = deps.options?.retireAfterMs ?? 600_000;
  const leaseMs = deps.options?.leaseMs ?? 300_000;
  const writeChecked = makeWriteMergedSegment(deps, clock);

  const tier = (ref: KnowledgeSegmentRef) =>
    ref.excerpts < 1 ? 0 : Math.floor(Math.log(ref.excerpts) / Math.log(factor) + 1e-9);

  /** The segments the size tiers say to merge now (the lowest full tier), or none. */
  function byTiers(refs: KnowledgeSegmentRef[]): KnowledgeSegmentRef[] {
    const tiers = new Map<number, KnowledgeSegmentRef[]>();
    for (const ref of refs) {
      const t = tier(ref);
      tiers.set(t, [...(tiers.get(t) ?? []), ref]);
    }
    const full = [...tiers].filter(([, list]) => list.length >= factor).sort((a, b) => a[0] - b[0]);
    return full[0]?.[1] ?? [];
  }

  /** Segments more than half of whose excerpts are no longer searchable. */
  function mostlyDead(view: KnowledgeView, refs: KnowledgeSegmentRef[]): KnowledgeSegmentRef[] {
    const live = new Map<number, number>();
    for (const doc of view.docs) if (doc.live) live.set(doc.segment, (live.get(doc.segment) ?? 0) + doc.count);
    return refs.filter((ref) => {
      const s = view.segments.findIndex((x) => x.id === ref.id);
      const total = view.segments[s]?.segment.excerptCount ?? 0;
      return total > 0 && (live.get(s) ?? 0) * 2 < total;
    });
  }

  async function dropRetired(botId: string, retired: Record<string, number>, now: number): Promise<void> {
    const due = Object.entries(retired)
      .filter(([, at]) => now - at >= retireAfterMs)
      .map(([key]) => key);
    if (!due.length) return;
    await deps.objects.delete(due);
    await deps.index.forgetRetired(botId, due);
  }

  /** Merges what the policy says (everything when `force`); true when a merge was written. */
  return async function compact(botId: string, options: { force?: boolean } = {}): Promise<boolean> {
    const first = await deps.index.state(botId);
    if (!first) return false;
    const now = clock().getTime();
    await dropRetired(botId, first.retired, now);
    const wanted = options.force
      ? first.segments.length > 1 || first.segments.some((s) => s.markers > 0)
      : byTiers(first.segments).length > 0 || first.segments.some(isLegacy);
    if (!wanted) return false;
    if (!(await deps.index.claimMerge(botId, now, now + leaseMs))) return false;
    try {
      const state = await deps.index.state(botId);
      if (!state) return false;
      const view = await deps.segments.view(botId, state.segments);
      // A segment found damaged stays listed (its markers still count) and is searched around; merging it would fail.
      const readable = state.segments.filter(
        (r) => !deps.segments.isUnreadable(r.key) && view.segments.some((x) => x.id === r.id),
      );
      const picked = new Set((options.force ? readable : byTiers(readable)).map((r) => r.id));
      for (const ref of [...mostlyDead(view, readable), ...readable.filter(isLegacy)]) picked.add(ref.id);
      const inputs = readable.filter((r) => picked.has(r.id));
      if (!inputs.length) return false;
      const inputPositions = inputs.map((r) => view.segments.findIndex((x) => x.id === r.id));
      const inputSet = new Set(inputPositions);
      const markers = markersToKeep(view, inputPositions, inputSet, now, graceMs);
      const keep = (i: number, d: number) => view.isLive(inputPositions[i]!, d);
      const kept = inputPositions.reduce(
        (n, s, i) => n + view.segments[s]!.segment.docs.filter((_, d) => keep(i, d)).length,
        0,
      );
      let added: KnowledgeSegmentRef | undefined;
      if (kept || markers.length) {
        try {
          added = await writeChecked(
            botId,
            inputPositions.map((s) => view.segments[s]!.segment),
            keep,
            markers,
          );
        } catch (error) {
          // An input turned out damaged: set aside (searched around, left out of later merges), nothing published.
          if (error instanceof SegmentFormatError && error.key) deps.segments.setAside(error.key, error);
          throw error;
        }
        if (!added) return false;
      }
      const replaced = await deps.index.replaceSegments(botId, inputs, added, clock().getTime());
      if (!replaced) {
        if (added) await deps.objects.delete([added.key]).catch(() => undefined);
        return false;
      }
      deps.logger.info('knowledge segments merged', {
        botId,
        inputs: inputs.length,
        docs: added?.docs ?? 0,
        excerpts: added?.excerpts ?? 0,
        bytes: added?.bytes ?? 0,
      });
      return true;
    } finally {
      await deps.index.releaseMerge(botId).catch(() => undefined);
    }
  };
}

/**
 * Written before segments were read by range (format 3, held whole in memory): rewritten by the next merge. Format 4
 * is read by range too (only its lengths are read whole when opened), so it waits for its size tier's merge rather
 * than having every bot's whole index rewritten at once.
 */
function isLegacy(ref: KnowledgeSegmentRef): boolean {
  return (ref.format ?? 3) < RANGED_FORMAT;
}

/**
 * The inputs' delete markers a merge must carry on (the newest per file): one still covers a document in a segment
 * that stays, or its delete is recent (an ingest that started before it may still publish).
 */
function markersToKeep(
  view: KnowledgeView,
  inputPositions: number[],
  inputSet: Set<number>,
  now: number,
  graceMs: number,
): DeleteMarker[] {
  const newest = new Map<string, DeleteMarker>();
  for (const s of inputPositions)
    for (const m of view.segments[s]!.segment.markers) {
      const seen = newest.get(m.fileKey);
      if (!seen || seen.generation < m.generation || (seen.generation === m.generation && (seen.at ?? 0) < (m.at ?? 0)))
        newest.set(m.fileKey, m);
    }
  const covered = new Set<string>();
  for (const doc of view.docs) {
    if (inputSet.has(doc.segment)) continue;
    const m = newest.get(doc.fileKey);
    if (m && doc.generation <= m.generation) covered.add(doc.fileKey);
  }
  return [...newest.values()].filter((m) => covered.has(m.fileKey) || now - (m.at ?? 0) < graceMs);
}
