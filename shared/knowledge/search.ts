import type { Bot, BotStore } from '../bots/index.ts';
import type { Logger } from '../kernel/logger.ts';
import type { EmbeddingsProvider } from './embeddings.ts';
import { compileFileFilters } from './file-pattern.ts';
import { LexicalIndex, topExcerpts } from './index/lexical-index.ts';
import type { KnowledgeObjectStore } from './knowledge-files.ts';
import type { KnowledgeExcerpt, KnowledgeSearch, KnowledgeSearchRequest } from './knowledge-search.ts';

/** Reciprocal rank fusion constant (the usual 60). */
const RRF_K = 60;
/** Vector candidates considered for fusion. */
const VECTOR_CANDIDATES = 50;

/**
 * Loaded indexes, one per bot, kept while their version is current: a search reloads a bot's index only when the
 * bot's index version changed. Bounded by bytes (least recently used goes first); concurrent loads of the same
 * version share one read.
 */
export class IndexCache {
  private readonly entries = new Map<
    string,
    { version: number; key: string; index: Promise<LexicalIndex>; bytes: number }
  >();
  private bytes = 0;

  constructor(
    private readonly objects: KnowledgeObjectStore,
    private readonly maxBytes = 512 * 1024 * 1024,
    private readonly loadTimeoutMs = 10_000,
  ) {}

  async get(botId: string, version: number, key: string): Promise<LexicalIndex> {
    const hit = this.entries.get(botId);
    if (hit && hit.version === version && hit.key === key) {
      this.entries.delete(botId);
      this.entries.set(botId, hit);
      return hit.index;
    }
    if (hit) this.drop(botId);
    const entry = { version, key, bytes: 0, index: this.load(key) };
    this.entries.set(botId, entry);
    try {
      const index = await entry.index;
      entry.bytes = index.byteLength;
      this.bytes += entry.bytes;
      this.evict();
      return index;
    } catch (error) {
      if (this.entries.get(botId) === entry) this.entries.delete(botId);
      throw error;
    }
  }

  private async load(key: string): Promise<LexicalIndex> {
    return LexicalIndex.load(await this.objects.get(key, AbortSignal.timeout(this.loadTimeoutMs)));
  }

  private drop(botId: string): void {
    const entry = this.entries.get(botId);
    if (!entry) return;
    this.entries.delete(botId);
    this.bytes -= entry.bytes;
  }

  private evict(): void {
    for (const [botId] of this.entries) {
      if (this.bytes <= this.maxBytes || this.entries.size <= 1) return;
      this.drop(botId);
    }
  }
}

export interface KnowledgeSearchDeps {
  bots: Pick<BotStore, 'get'>;
  indexes: IndexCache;
  logger: Logger;
  embeddings?: EmbeddingsProvider;
  /** Deadline of the query embedding call (default 2 s); past it the search is lexical only. */
  embeddingTimeoutMs?: number;
}

/**
 * Knowledge search: 1. the bot's knowledge state (given, or one consistent read); 2. its index, from memory when the
 * version is current, else loaded from S3; 3. the searchable documents: live generations (a deleted or replaced
 * file is out at once) that pass the file filters; 4. BM25, fused with vector similarity by reciprocal rank when
 * an embeddings model is configured and the index has vectors of that model; 5. the best `topK`.
 * Any failure is logged and yields no excerpts.
 */
export function makeKnowledgeSearch(deps: KnowledgeSearchDeps): KnowledgeSearch {
  return {
    async search(request: KnowledgeSearchRequest): Promise<KnowledgeExcerpt[]> {
      try {
        const bot: Bot | undefined = request.bot ?? (await deps.bots.get(request.botId));
        if (!bot) return [];
        const { indexVersion, indexKey, liveGenerations } = bot.knowledge;
        const live = new Set(Object.values(liveGenerations));
        if (!indexKey || !live.size) return [];
        const index = await deps.indexes.get(bot.botId, indexVersion, indexKey);
        const passes = compileFileFilters(request.filters);
        const allowed = new Uint8Array(index.docs.length);
        let any = false;
        index.docs.forEach((doc, i) => {
          if (live.has(doc.generation) && passes(doc.fileName)) {
            allowed[i] = 1;
            any = true;
          }
        });
        if (!any) return [];

        const { scores, matched } = index.scoreQuery(request.query, allowed);
        let ranked = topExcerpts(matched, scores, request.topK);
        if (deps.embeddings && index.dims && index.embeddingModel === deps.embeddings.model) {
          const fused = await fuseWithVectors(index, request, matched, scores, allowed, deps);
          if (fused) ranked = fused;
        }
        return ranked.map(({ excerpt, score }) => ({
          text: index.text(excerpt),
          fileName: index.docs[index.docOf(excerpt)]!.fileName,
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

async function fuseWithVectors(
  index: LexicalIndex,
  request: KnowledgeSearchRequest,
  matched: number[],
  scores: Float32Array,
  allowed: Uint8Array,
  deps: KnowledgeSearchDeps,
): Promise<{ excerpt: number; score: number }[] | undefined> {
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
  const lexicalRank = [...matched].sort((a, b) => scores[b]! - scores[a]! || a - b);
  const vectorRank = index
    .scoreVector(queryVector, allowed)
    .filter((v) => v.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity || a.excerpt - b.excerpt)
    .slice(0, VECTOR_CANDIDATES)
    .map((v) => v.excerpt);
  const fused = new Map<number, number>();
  for (const ranking of [lexicalRank.slice(0, VECTOR_CANDIDATES), vectorRank]) {
    for (const [i, e] of ranking.entries()) fused.set(e, (fused.get(e) ?? 0) + 1 / (RRF_K + i + 1));
  }
  // Normalised by the best possible fused score (first in both lists), so scores stay in 0..1.
  const best = 2 / (RRF_K + 1);
  return [...fused]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, request.topK)
    .map(([excerpt, s]) => ({ excerpt, score: Math.min(1, s / best) }));
}

function round(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}
