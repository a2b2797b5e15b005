import type { Bot, BotStore } from '../bots/index.ts';
import type { Logger } from '../kernel/logger.ts';
import type { EmbeddingsProvider } from '../models/index.ts';
import { compileFileFilters } from './file-pattern.ts';
import type { KnowledgeView, ScoredExcerpt } from './index/knowledge-view.ts';
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
 * view over them, from memory when the list is unchanged, else with the new segments loaded from S3; 3. the
 * searchable documents (the newest version of each file, none deleted) that pass the file filters; 4. BM25 (see
 * KnowledgeView), fused with vector similarity by reciprocal rank when an embeddings model is configured and the
 * index has vectors of that model; 5. the best `topK`, one passage not filling every slot.
 * Any failure is logged and yields no excerpts.
 */
export function makeKnowledgeSearch(deps: KnowledgeSearchDeps): KnowledgeSearch {
  return {
    async search(request: KnowledgeSearchRequest): Promise<KnowledgeExcerpt[]> {
      try {
        const bot: Bot | undefined = request.bot ?? (await deps.bots.get(request.botId));
        if (!bot?.knowledge.segments.length) return [];
        const view = await deps.segments.view(bot.botId, bot.knowledge.segments);
        if (!view.liveExcerpts) return [];
        const filtered = request.filters?.include?.length || request.filters?.exclude?.length;
        const allowed = view.allowed(filtered ? compileFileFilters(request.filters) : undefined);
        const { scores, matched } = view.score(request.query, allowed);
        let ranked = view.select(matched, scores, request.topK);
        if (deps.embeddings && view.hasVectors(deps.embeddings.model)) {
          const fused = await fuseWithVectors(view, request, matched, scores, allowed, deps);
          if (fused) ranked = fused;
        }
        return ranked.map(({ excerpt, score }) => ({
          text: view.text(excerpt),
          fileName: view.docOf(excerpt).fileName,
          score: round(score),
        }));
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
  matched: number[],
  scores: Float32Array,
  allowed: Uint8Array,
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
  const similarities = view.scoreVector(queryVector, deps.embeddings!.model, allowed);
  return fuseRankings(view, matched, scores, similarities, request.topK);
}

/**
 * Reciprocal rank fusion: the lexical ranking and the vector ranking (positive similarities), each cut to its best
 * 50, fused with k = 60; fused scores are divided by the best possible (first in both lists), so they stay in 0..1.
 * The same top-K selection as the lexical path then keeps one passage from filling every slot.
 */
export function fuseRankings(
  view: KnowledgeView,
  matched: readonly number[],
  scores: ArrayLike<number>,
  similarities: { excerpt: number; similarity: number }[],
  topK: number,
): ScoredExcerpt[] {
  const lexicalRank = [...matched].sort((a, b) => scores[b]! - scores[a]! || a - b).slice(0, FUSION_CANDIDATES);
  const vectorRank = similarities
    .filter((v) => v.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity || a.excerpt - b.excerpt)
    .slice(0, FUSION_CANDIDATES)
    .map((v) => v.excerpt);
  const fused = new Map<number, number>();
  for (const ranking of [lexicalRank, vectorRank])
    for (const [i, e] of ranking.entries()) fused.set(e, (fused.get(e) ?? 0) + 1 / (RRF_K + i + 1));
  const best = 2 / (RRF_K + 1);
  const fusedScores = new Float32Array(view.excerptCount);
  for (const [e, s] of fused) fusedScores[e] = Math.min(1, s / best);
  return view.select([...fused.keys()], fusedScores, topK);
}

function round(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
