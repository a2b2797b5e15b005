import type { Bot, BotStore } from '../bots/index.ts';
import type { Logger } from '../kernel/logger.ts';
import type { EmbeddingsProvider } from '../models/index.ts';
import { compileFileFilters } from './file-pattern.ts';
import type { KnowledgeView, ScoredExcerpt } from './index/knowledge-view.ts';
import { SegmentFormatError } from './index/segment-format.ts';
import type { KnowledgeExcerpt, KnowledgeSearch, KnowledgeSearchRequest } from './knowledge-search.ts';
import type { SegmentCache } from './segment-cache.ts';

/** Reciprocal rank fusion constant (the usual 60). */
const RRF_K = 60;
/** Candidates of each ranking considered for fusion. */
const FUSION_CANDIDATES = 50;

export interface KnowledgeSearchDeps {
  bots: Pick<BotStore, 'get'>;
  segments: SegmentCache;
  logger: Logger;
  embeddings?: EmbeddingsProvider;
  /** Deadline of the query embedding call (default 2 s); past it the search is lexical only. */
  embeddingTimeoutMs?: number;
}

/**
 * Knowledge search: 1. the bot's knowledge state (given, or one consistent read): the segments of its index; 2. the
 * view over them, from memory when the list is unchanged, else with the new segments opened (their tails read by
 * range); 3. the searchable documents (the newest version of each file, none deleted) that pass the file filters;
 * 4. BM25 over the query terms' postings, fetched by range and cached (see KnowledgeView), fused with vector
 * similarity by reciprocal rank when an embeddings model is configured and the index has vectors of that model;
 * 5. the best `topK`, one passage not filling every slot; 6. only their texts are fetched.
 * A segment found damaged is set aside and the search runs again without it; any other failure is logged and yields
 * no excerpts.
 */
export function makeKnowledgeSearch(deps: KnowledgeSearchDeps): KnowledgeSearch {
  async function once(request: KnowledgeSearchRequest, bot: Bot): Promise<KnowledgeExcerpt[]> {
    const view = await deps.segments.view(bot.botId, bot.knowledge.segments);
    if (!view.liveExcerpts) return [];
    const filtered = request.filters?.include?.length || request.filters?.exclude?.length;
    const passes = filtered ? compileFileFilters(request.filters) : undefined;
    const fusing = deps.embeddings && view.hasVectors(deps.embeddings.model);
    const lexical = await view.rank(request.query, {
      ...(passes ? { passes } : {}),
      limit: Math.max(4 * request.topK, fusing ? FUSION_CANDIDATES : 0),
    });
    let ranked = view.select(lexical, request.topK);
    if (fusing) {
      const fused = await fuseWithVectors(view, request, lexical, passes, deps);
      if (fused) ranked = fused;
    }
    const texts = await view.texts(ranked.map((r) => r.excerpt));
    return ranked.map(({ excerpt, score }, i) => ({
      text: texts[i]!,
      fileName: view.docOf(excerpt).fileName,
      score: round(score),
    }));
  }

  return {
    async search(request: KnowledgeSearchRequest): Promise<KnowledgeExcerpt[]> {
      try {
        const bot: Bot | undefined = request.bot ?? (await deps.bots.get(request.botId));
        if (!bot?.knowledge.segments.length) return [];
        try {
          return await once(request, bot);
        } catch (error) {
          if (!(error instanceof SegmentFormatError) || !error.key) throw error;
          deps.segments.setAside(error.key, error);
          return await once(request, bot);
        }
      } catch (error) {
        deps.logger.error('knowledge search failed; answering with no excerpts', {
          botId: request.botId,
          cause: String(error),
        });
        return [];
      }
    },
  };
}

/**
 * Hybrid retrieval: the query's embedding against the excerpts' vectors, fused with the lexical ranking (see
 * {@link fuseRankings}). Undefined (lexical only) when the query cannot be embedded in time.
 */
async function fuseWithVectors(
  view: KnowledgeView,
  request: KnowledgeSearchRequest,
  lexical: ScoredExcerpt[],
  passes: ((fileName: string) => boolean) | undefined,
  deps: KnowledgeSearchDeps,
): Promise<ScoredExcerpt[] | undefined> {
  let queryVector: Float32Array;
  try {
    [queryVector] = (await deps.embeddings!.embed(
      [request.query],
      'query',
      AbortSignal.timeout(deps.embeddingTimeoutMs ?? 2_000),
    )) as [Float32Array];
  } catch (error) {
    deps.logger.warn('query embedding failed; lexical search only', { botId: request.botId, cause: String(error) });
    return undefined;
  }
  const similarities = await view.vectorRanking(queryVector, deps.embeddings!.model, {
    ...(passes ? { passes } : {}),
    limit: FUSION_CANDIDATES,
  });
  return fuseRankings(view, lexical, similarities, request.topK);
}

/**
 * Reciprocal rank fusion: the lexical ranking (best first) and the vector ranking (positive similarities, best
 * first), each cut to its best 50, fused with k = 60; fused scores are divided by the best possible (first in both
 * lists), so they stay in 0..1. The same top-K selection as the lexical path then keeps one passage from filling
 * every slot.
 */
export function fuseRankings(
  view: KnowledgeView,
  lexical: readonly ScoredExcerpt[],
  similarities: readonly { excerpt: number; similarity: number }[],
  topK: number,
): ScoredExcerpt[] {
  const lexicalRank = lexical.slice(0, FUSION_CANDIDATES).map((r) => r.excerpt);
  const vectorRank = similarities
    .filter((v) => v.similarity > 0)
    .slice(0, FUSION_CANDIDATES)
    .map((v) => v.excerpt);
  const fused = new Map<number, number>();
  for (const ranking of [lexicalRank, vectorRank])
    for (const [i, e] of ranking.entries()) fused.set(e, (fused.get(e) ?? 0) + 1 / (RRF_K + i + 1));
  const best = 2 / (RRF_K + 1);
  return view.select(
    [...fused].map(([excerpt, s]) => ({ excerpt, score: Math.fround(Math.min(1, s / best)) })),
    topK,
  );
}

function round(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
